import TailorHTTP

/// View models become JSON once per version, with sorted keys so that the same
/// view model always gives the same bytes and the same ETag.
enum ViewModelEncoding {
    static func json(_ value: some JSONWritable) -> [UInt8] {
        JSONWriter.bytes(of: value)
    }

    static func representation(_ value: some JSONWritable) -> CachedRepresentation {
        CachedRepresentation(json(value), contentType: HTTPResponse.jsonContentType)
    }

    static func response(_ value: some JSONWritable, status: HTTPStatus = .ok, headers: [HTTPField] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [HTTPField("Content-Type", HTTPResponse.jsonContentType)] + headers,
                     body: .init(json(value)))
    }
}
