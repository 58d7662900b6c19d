import TailorHTTP

/// View models become JSON once per version, with sorted keys so that the same
/// view model always gives the same bytes and the same ETag.
package enum ViewModelEncoding {
    package static func json(_ value: some JSONWritable) -> [UInt8] {
        JSONWriter.bytes(of: value)
    }

    package static func representation(_ value: some JSONWritable) -> CachedRepresentation {
        CachedRepresentation(json(value), contentType: HTTPResponse.jsonContentType)
    }

    /// The representation, and with `layout` where each value lies in it.
    package static func encoded(_ value: some JSONWritable, layout: Bool) -> EncodedView {
        guard layout else { return EncodedView(representation: representation(value), layout: nil) }
        let (bytes, layout) = JSONWriter.bytesAndLayout(of: value)
        return EncodedView(representation: CachedRepresentation(bytes, contentType: HTTPResponse.jsonContentType), layout: layout)
    }

    package static func response(_ value: some JSONWritable, status: HTTPStatus = .ok, headers: [HTTPField] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [HTTPField("Content-Type", HTTPResponse.jsonContentType)] + headers,
                     body: .init(json(value)))
    }
}

/// A view model encoded once, with its layout when a patch needs it.
package struct EncodedView: Sendable {
    package let representation: CachedRepresentation
    package let layout: JSONLayout?
}
