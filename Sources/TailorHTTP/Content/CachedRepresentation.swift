import Synchronization
import TailorLoop

/// One version of a resource, prepared once for every request that will read it:
/// the bytes, their gzip variant when it is worth sending, and a strong ETag for each.
///
/// Answering is then a choice among ready values, with no encoding, hashing or
/// allocation of bodies per request. The view-model cache and static files both
/// hand these to the connection.
///
/// The gzip variant is made when a client first asks for it, not with the
/// representation: a view model rebuilt for event streams after every change
/// may never be fetched gzipped at all. So are its ETags and the fields of
/// each kind of answer: most versions are built for streams and never
/// fetched, and hashing each, or making lists of fields with each, would cost
/// the lanes much of their work for answers never given; once made,
/// every later answer shares them.
public final class CachedRepresentation: Sendable {
    public let contentType: String
    public let identity: SharedBytes
    /// Whether the body could be sent gzipped, so that its answers say `Vary`.
    private let isCompressible: Bool
    /// Whether a gzip variant is offered: compressible and large enough.
    private let offersGzip: Bool
    /// The ETags, once an answer or a caller needed them.
    private let tags = Mutex<ETags?>(nil)
    private let gzipVariant = Mutex(GzipVariant.notMadeYet)
    /// Each kind of answer's fields (indexed by `Answer`), once one was given.
    /// Empty, so allocating nothing, until the first answer.
    private let keptFields = Mutex<[[HTTPField]?]>([])

    private struct ETags {
        let identity: String
        /// Nil when no gzip variant is offered.
        let gzip: String?
    }

    private enum GzipVariant {
        case notMadeYet
        case ready(SharedBytes)
        /// Compression did not make it smaller: identity is sent instead.
        case notSmaller
    }

    /// Bodies at least this large are offered gzip-encoded (smaller ones gain
    /// less than the encoding costs the client).
    public static let gzipThreshold = 1024

    public init(_ bytes: [UInt8], contentType: String) {
        self.contentType = contentType
        identity = SharedBytes(bytes)
        isCompressible = ContentType.isCompressible(contentType)
        offersGzip = isCompressible && bytes.count >= Self.gzipThreshold
    }

    public var identityETag: String { etags.identity }

    /// Nil when no gzip variant is offered.
    public var gzipETag: String? { etags.gzip }

    /// Found on first use; two threads that ask at once may both hash, and
    /// find the same tags.
    private var etags: ETags {
        if let made = tags.withLock({ $0 }) { return made }
        let hash = withExtendedLifetime(identity) { ETag.hash(identity.bytes) }
        let made = ETags(identity: ETag.strong(hash: hash), gzip: offersGzip ? ETag.strong(hash: hash, suffix: "-gzip") : nil)
        tags.withLock { $0 = made }
        return made
    }

    /// The gzip variant, made on first use; nil when the body is too small or
    /// not compressible, or when compression did not shrink it.
    ///
    /// Compressed outside the lock: a loop that asks at the same moment as
    /// another compresses too, rather than wait for it, and the first result
    /// kept is the one every later request gets.
    public var gzip: SharedBytes? {
        guard offersGzip else { return nil }
        switch gzipVariant.withLock({ $0 }) {
        case .ready(let bytes): return bytes
        case .notSmaller: return nil
        case .notMadeYet: break
        }
        let compressed = Gzip.compress(identity.array)
        let made = compressed.count < identity.count ? GzipVariant.ready(SharedBytes(compressed)) : .notSmaller
        let kept = gzipVariant.withLock { variant -> GzipVariant in
            if case .notMadeYet = variant { variant = made }
            return variant
        }
        if case .ready(let bytes) = kept { return bytes }
        return nil
    }

    /// Whether answering `request` would compress first: it accepts gzip and
    /// the variant is not made yet. The caller may make it (`gzip`) where
    /// compressing holds nobody up, before it answers.
    public func compressesFirst(for request: HTTPRequest) -> Bool {
        guard acceptsGzip(request), case .notMadeYet = gzipVariant.withLock({ $0 }) else { return false }
        return true
    }

    private func acceptsGzip(_ request: HTTPRequest) -> Bool {
        offersGzip && AcceptEncoding.allowsGzip(request.headers["accept-encoding"])
    }

    /// The response for `request`: 304 when its `If-None-Match` names the chosen
    /// variant, else 200 with that variant.
    public func response(to request: HTTPRequest, status: HTTPStatus = .ok) -> HTTPResponse {
        let gzip = acceptsGzip(request) ? self.gzip : nil
        let etag = gzip != nil ? gzipETag! : identityETag
        if let condition = request.headers.valueBytes("if-none-match"), ETag.ifNoneMatch(condition, matches: etag) {
            return HTTPResponse(status: .notModified, headers: fields(of: gzip != nil ? .notModifiedGzip : .notModified))
        }
        if let gzip {
            return HTTPResponse(status: status, headers: fields(of: .gzip), body: gzip)
        }
        return HTTPResponse(status: status, headers: fields(of: .identity), body: identity)
    }

    /// The kinds of answer, each with fields of its own.
    private enum Answer: Int, CaseIterable {
        case identity
        case gzip
        /// 304 for the identity variant's tag.
        case notModified
        /// 304 for the gzip variant's tag.
        case notModifiedGzip
    }

    /// The fields of `answer`, made on its first use and shared after.
    private func fields(of answer: Answer) -> [HTTPField] {
        if let kept = keptFields.withLock({ $0.isEmpty ? nil : $0[answer.rawValue] }) { return kept }
        let made = makeFields(of: answer)
        keptFields.withLock { kept in
            if kept.isEmpty { kept = Array(repeating: nil, count: Answer.allCases.count) }
            kept[answer.rawValue] = made
        }
        return made
    }

    /// Vary is said whenever the answer could depend on Accept-Encoding, so
    /// that a shared cache never hands gzip to a client that did not ask for it.
    private func makeFields(of answer: Answer) -> [HTTPField] {
        var fields: [HTTPField] = []
        switch answer {
        case .identity:
            fields.append(HTTPField("Content-Type", contentType))
            fields.append(HTTPField("ETag", identityETag))
        case .gzip:
            fields.append(HTTPField("Content-Type", contentType))
            fields.append(HTTPField("Content-Encoding", "gzip"))
            fields.append(HTTPField("ETag", gzipETag!))
        case .notModified:
            fields.append(HTTPField("ETag", identityETag))
        case .notModifiedGzip:
            fields.append(HTTPField("ETag", gzipETag!))
        }
        if isCompressible { fields.append(HTTPField("Vary", "Accept-Encoding")) }
        return fields
    }

    /// Bytes held, for cache budgets: an upper bound that does not change when
    /// the gzip variant is made (it is kept only when smaller than identity).
    public var byteCount: Int { identity.count * (offersGzip ? 2 : 1) }
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
