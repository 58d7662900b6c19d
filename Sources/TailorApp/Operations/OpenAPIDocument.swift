import CEmbeddedFiles
import TailorHTTP

/// `GET /api/openapi.json`: the HTTP API as an OpenAPI 3.1 document — routes,
/// bodies, view models, errors, and the event stream with its event types.
///
/// Written in `docs/openapi.json` and built into the server (`CEmbeddedFiles`),
/// so that the document a client reads is the one of the server it talks to.
/// CI validates it (openapi-spec-validator) and runs schemathesis against a
/// live server with it (`scripts/api-check`).
enum OpenAPIDocument {
    /// The document's bytes, as the build found the file.
    static let bytes = Array(UnsafeBufferPointer(start: tailorOpenAPIDocument(), count: tailorOpenAPIDocumentSize()))

    static let representation = CachedRepresentation(bytes, contentType: HTTPResponse.jsonContentType)

    static func register(on router: inout Router) {
        router.get("/api/openapi.json") { request in representation.response(to: request) }
    }
}
