import Crypto
import TailorViews

/// The server's identity to push services (RFC 8292): a P-256 key pair whose
/// public half browsers subscribe with, and which signs a short-lived token on
/// every push, so that a push service accepts pushes to a subscription only
/// from the server it was made for.
public struct VAPIDKey: Sendable {
    public let privateKey: P256.Signing.PrivateKey

    public init(privateKey: P256.Signing.PrivateKey = .init()) {
        self.privateKey = privateKey
    }

    /// The key from its 32 raw bytes, as the database keeps it.
    public init(rawRepresentation: [UInt8]) throws {
        privateKey = try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation)
    }

    /// The key from a PEM file (`openssl ecparam -name prime256v1 -genkey`).
    public init(pem: String) throws {
        privateKey = try P256.Signing.PrivateKey(pemRepresentation: pem)
    }

    public var rawRepresentation: [UInt8] { Array(privateKey.rawRepresentation) }

    /// The public key as browsers take it for `applicationServerKey`: the
    /// uncompressed point, Base64URL.
    public var publicKey: String { Base64URL.encode(Array(privateKey.publicKey.x963Representation)) }

    /// The `Authorization` field of a push to `audience` (the push service's
    /// origin, `https://host`): `vapid t=JWT, k=KEY`, the token signed with
    /// ES256 and valid until `expiry` (seconds since 1970; at most a day ahead).
    public func authorization(audience: String, subject: String, expiry: Int) throws -> String {
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        var claims = JSONWriter(capacity: 128)
        claims.object {
            $0.field("aud", audience)
            $0.field("exp", expiry)
            $0.field("sub", subject)
        }
        let signed = header + "." + Base64URL.encode(claims.bytes)
        let signature = try privateKey.signature(for: Array(signed.utf8))
        return "vapid t=\(signed).\(Base64URL.encode(Array(signature.rawRepresentation))), k=\(publicKey)"
    }
}
