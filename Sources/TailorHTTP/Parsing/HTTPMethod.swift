/// A request method (RFC 9110 §9). The common ones are cases so routing compares
/// integers; any other token is kept as written.
public enum HTTPMethod: Hashable, Sendable, CustomStringConvertible {
    case get, head, post, put, patch, delete, options
    case other(String)

    init(token: UnsafeRawBufferPointer) {
        switch token.count {
        case 3 where Self.equal(token, "GET"): self = .get
        case 3 where Self.equal(token, "PUT"): self = .put
        case 4 where Self.equal(token, "HEAD"): self = .head
        case 4 where Self.equal(token, "POST"): self = .post
        case 5 where Self.equal(token, "PATCH"): self = .patch
        case 6 where Self.equal(token, "DELETE"): self = .delete
        case 7 where Self.equal(token, "OPTIONS"): self = .options
        default: self = .other(String(decoding: token, as: UTF8.self))
        }
    }

    public init(_ name: String) {
        self = Array(name.utf8).withUnsafeBytes { HTTPMethod(token: $0) }
    }

    public var description: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .patch: "PATCH"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        case .other(let name): name
        }
    }

    private static func equal(_ token: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        name.withUTF8Buffer { $0.elementsEqual(token) }
    }
}
