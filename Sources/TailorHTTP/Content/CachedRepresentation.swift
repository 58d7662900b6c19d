import TailorLoop

/// One version of a resource, prepared once for every request that will read it:
/// the bytes, their gzip variant when it is worth sending, a strong ETag for each,
/// and the response fields of every outcome.
///
/// Answering is then a choice among ready values, with no encoding, hashing or
/// allocation of bodies per request. The view-model cache and static files both
/// hand these to the connection.
public final class CachedRepresentation: Sendable {
    public let contentType: String
    public let identity: SharedBytes
    public let identityETag: String
    public let gzip: SharedBytes?
    public let gzipETag: String?

    private let identityFields: [HTTPField]
    private let gzipFields: [HTTPField]
    private let identityNotModifiedFields: [HTTPField]
    private let gzipNotModifiedFields: [HTTPField]

    /// Bodies at least this large are offered gzip-encoded (smaller ones gain
    /// less than the encoding costs the client).
    public static let gzipThreshold = 1024

    public init(_ bytes: [UInt8], contentType: String) {
        self.contentType = contentType
        identity = SharedBytes(bytes)
        identityETag = bytes.withUnsafeBytes { ETag.strong(for: $0) }
        let compressible = ContentType.isCompressible(contentType)
        if compressible, bytes.count >= Self.gzipThreshold {
            let compressed = Gzip.compress(bytes)
            if compressed.count < bytes.count {
                gzip = SharedBytes(compressed)
                gzipETag = bytes.withUnsafeBytes { ETag.strong(for: $0, suffix: "-gzip") }
            } else {
                gzip = nil
                gzipETag = nil
            }
        } else {
            gzip = nil
            gzipETag = nil
        }
        // Say Vary whenever the answer could depend on Accept-Encoding, so a shared
        // cache never hands gzip to a client that did not ask for it.
        let vary = compressible ? [HTTPField("Vary", "Accept-Encoding")] : []
        identityNotModifiedFields = [HTTPField("ETag", identityETag)] + vary
        identityFields = [HTTPField("Content-Type", contentType)] + identityNotModifiedFields
        gzipNotModifiedFields = [HTTPField("ETag", gzipETag ?? identityETag)] + vary
        gzipFields = [HTTPField("Content-Type", contentType), HTTPField("Content-Encoding", "gzip")] + gzipNotModifiedFields
    }

    /// The response for `request`: 304 when its `If-None-Match` names the chosen
    /// variant, else 200 with that variant.
    public func response(to request: HTTPRequest, status: HTTPStatus = .ok) -> HTTPResponse {
        let useGzip = gzip != nil && AcceptEncoding.allowsGzip(request.headers["accept-encoding"])
        let etag = useGzip ? gzipETag! : identityETag
        if let condition = request.headers["if-none-match"], ETag.ifNoneMatch(condition, matches: etag) {
            return HTTPResponse(status: .notModified, headers: useGzip ? gzipNotModifiedFields : identityNotModifiedFields)
        }
        return useGzip
            ? HTTPResponse(status: status, headers: gzipFields, body: gzip!)
            : HTTPResponse(status: status, headers: identityFields, body: identity)
    }

    /// Bytes held, for cache budgets.
    public var byteCount: Int { identity.count + (gzip?.count ?? 0) }
}

/// Reading `Accept-Encoding` (RFC 9110 §12.5.3) for the one coding we send.
enum AcceptEncoding {
    static func allowsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        var starAllowed = false
        for entry in header.split(separator: ",") {
            let parts = entry.split(separator: ";")
            let coding = parts[0].trimmed.lowercased()
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.trimmed.lowercased()
                if pair.hasPrefix("q="), let value = Double(pair.dropFirst(2)) { quality = value }
            }
            if coding == "gzip" || coding == "x-gzip" { return quality > 0 }
            if coding == "*" { starAllowed = quality > 0 }
        }
        return starAllowed
    }
}
