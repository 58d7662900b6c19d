import FoundationEssentials
import TailorHTTP

/// View models become JSON once per version, with sorted keys so that the same
/// view model always gives the same bytes and the same ETag.
enum ViewModelEncoding {
    static func json(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our view models hold only strings, numbers, arrays and nested models.
        return Array(try! encoder.encode(value))
    }

    static func representation(_ value: some Encodable) -> CachedRepresentation {
        CachedRepresentation(json(value), contentType: HTTPResponse.jsonContentType)
    }

    static func response(_ value: some Encodable, status: HTTPStatus = .ok, headers: [HTTPField] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [HTTPField("Content-Type", HTTPResponse.jsonContentType)] + headers,
                     body: .init(json(value)))
    }
}
