import Crypto

/// A push message's payload encrypted for one browser, as RFC 8291 has it:
/// the `aes128gcm` content coding of RFC 8188 with a key agreed by ECDH on
/// P-256 between a key pair made for this message and the browser's key, and
/// mixed with the browser's authentication secret. Only the browser can read
/// it; the push service sees ciphertext.
public enum PushEncryption {
    /// Bytes of a record: the whole payload goes in one, so it must fit.
    public static let recordSize = 4096
    /// The most plaintext one record holds: its size less the delimiter byte
    /// and the 16-byte tag.
    public static let maxPlaintext = recordSize - 17

    public enum Failure: Error, Equatable {
        case tooLarge(bytes: Int)
        /// The browser's key is not a point of P-256, or its secret not 16 bytes.
        case unusableKeys
    }

    /// Whether a subscription's keys can be encrypted for: `p256dh` an
    /// uncompressed point of P-256, `auth` 16 bytes.
    public static func areUsable(p256dh: [UInt8], auth: [UInt8]) -> Bool {
        browserKey(p256dh: p256dh, auth: auth) != nil
    }

    /// The browser's public key, when `p256dh` is an uncompressed point of
    /// P-256 and `auth` 16 bytes.
    private static func browserKey(p256dh: [UInt8], auth: [UInt8]) -> P256.KeyAgreement.PublicKey? {
        guard auth.count == 16, p256dh.count == 65, p256dh.first == 4 else { return nil }
        do {
            return try P256.KeyAgreement.PublicKey(x963Representation: p256dh)
        } catch {
            return nil
        }
    }

    /// `plaintext` encrypted for the subscription whose keys these are.
    public static func encrypt(_ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8]) throws -> [UInt8] {
        guard let key = browserKey(p256dh: p256dh, auth: auth) else { throw Failure.unusableKeys }
        return try encrypt(plaintext, for: key, auth: auth)
    }

    /// `plaintext` encrypted for the browser whose key is `p256dh` (an
    /// uncompressed point) and whose authentication secret is `auth`.
    /// `senderKey` and `salt` are made anew for each message; a test may give them.
    public static func encrypt(_ plaintext: [UInt8], for key: P256.KeyAgreement.PublicKey, auth: [UInt8],
                               senderKey: P256.KeyAgreement.PrivateKey = .init(),
                               salt: [UInt8] = randomBytes(16)) throws -> [UInt8] {
        guard plaintext.count <= maxPlaintext else { throw Failure.tooLarge(bytes: plaintext.count) }
        let receiverPoint = Array(key.x963Representation)
        let senderPoint = Array(senderKey.publicKey.x963Representation)
        let shared = try senderKey.sharedSecretFromKeyAgreement(with: key)
        // The key of RFC 8291, section 3.4: the secret agreed, keyed with the
        // browser's authentication secret and both public keys.
        let keyInfo = Array("WebPush: info".utf8) + [0] + receiverPoint + senderPoint
        let inputKey = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: keyInfo, outputByteCount: 32)
        let contentKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: inputKey, salt: salt,
                                                info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonceBytes = HKDF<SHA256>.deriveKey(inputKeyMaterial: inputKey, salt: salt,
                                                info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
            .withUnsafeBytes { Array($0) }
        // One record, the last: the plaintext and its delimiter, 2.
        let sealed = try AES.GCM.seal(plaintext + [2], using: contentKey, nonce: try AES.GCM.Nonce(data: nonceBytes))
        // The header of RFC 8188, section 2.1: salt, record size, and the key id,
        // which here is the sender's public key.
        var body = salt
        body += withUnsafeBytes(of: UInt32(recordSize).bigEndian) { Array($0) }
        body.append(UInt8(senderPoint.count))
        body += senderPoint
        body += sealed.ciphertext
        body += sealed.tag
        return body
    }

    public static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
