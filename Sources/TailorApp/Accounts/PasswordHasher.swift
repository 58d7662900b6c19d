import CLibCrypto
import TailorLoop
import TailorStore

/// Passwords are stored as scrypt hashes (RFC 7914, OpenSSL's implementation):
/// memory-hard, so guessing costs memory as well as time. A stored hash says
/// its parameters and salt, `scrypt$N$r$p$SALT$HASH` in hex, so they can be
/// raised later without breaking the hashes already stored.
///
/// Hashing takes tens of milliseconds and `memoryBytes` of memory: it runs on
/// a thread of its own (`passwords`), never on a loop, one hash at a time,
/// which also bounds the memory that a burst of sign-ins can take. What waits
/// for it is bounded and shared out by client (`PasswordQueue`).
final class PasswordHasher: Sendable {
    struct Parameters: Sendable, Equatable {
        /// CPU and memory cost: a power of two.
        var n: UInt64 = 1 << 15
        var r: UInt64 = 8
        var p: UInt64 = 1

        /// What one hash takes: 128 · N · r bytes (32 MiB for the defaults).
        var memoryBytes: UInt64 { 128 * n * r }
    }

    /// 8 to 128 characters, at most 512 bytes.
    static let limit = TextLimit(characters: 8...128, bytes: 512)
    static let saltBytes = 16
    static let hashBytes = 32

    let parameters: Parameters
    let queue: PasswordQueue

    init(parameters: Parameters = Parameters(), limits: PasswordQueue.Limits = PasswordQueue.Limits()) {
        self.parameters = parameters
        queue = PasswordQueue(limits: limits)
    }

    /// A new stored hash of `password`, with a fresh salt.
    func hash(_ password: String, for requester: PasswordQueue.Requester) async throws(PasswordQueue.Refusal) -> String {
        try await queue.run(for: requester) { [parameters] in Self.hash(password, salt: Self.randomSalt(), parameters: parameters) }
    }

    /// Whether `password` matches `stored`. With no stored hash (no such
    /// name, or no password) a hash is made all the same, with the current
    /// parameters, and the answer is no: it takes as long either way.
    func verify(_ password: String, against stored: String?, for requester: PasswordQueue.Requester) async throws(PasswordQueue.Refusal) -> Bool {
        try await queue.run(for: requester) { [parameters] in
            guard let stored, let parsed = Self.parse(stored) else {
                _ = Self.matches(password, Stored(parameters: parameters, salt: [UInt8](repeating: 0, count: Self.saltBytes),
                                                  hash: [UInt8](repeating: 0, count: Self.hashBytes)))
                return false
            }
            return Self.matches(password, parsed)
        }
    }

    // MARK: The format

    private struct Stored {
        let parameters: Parameters
        let salt: [UInt8]
        let hash: [UInt8]
    }

    static func hash(_ password: String, salt: [UInt8], parameters: Parameters) -> String {
        hash(bytes: normalized(password), salt: salt, parameters: parameters)
    }

    static func hash(bytes password: [UInt8], salt: [UInt8], parameters: Parameters) -> String {
        let derived = derive(password, salt: salt, parameters: parameters)
        return ["scrypt", String(parameters.n), String(parameters.r), String(parameters.p), Hex.text(salt), Hex.text(derived)].joined(separator: "$")
    }

    private static func parse(_ stored: String) -> Stored? {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let n = UInt64(parts[1]), let r = UInt64(parts[2]), let p = UInt64(parts[3]),
              let salt = Hex.bytes(parts[4]), let hash = Hex.bytes(parts[5]), hash.count == hashBytes else { return nil }
        return Stored(parameters: Parameters(n: n, r: r, p: p), salt: salt, hash: hash)
    }

    /// Whether `password` is the one `stored` was made from: its NFC form, or
    /// for a hash made before passwords were normalized, its bytes as sent.
    private static func matches(_ password: String, _ stored: Stored) -> Bool {
        let nfc = normalized(password)
        return matches(nfc, stored) || (nfc != Array(password.utf8) && matches(Array(password.utf8), stored))
    }

    private static func matches(_ password: [UInt8], _ stored: Stored) -> Bool {
        let derived = derive(password, salt: stored.salt, parameters: stored.parameters)
        return derived.count == stored.hash.count && CRYPTO_memcmp(derived, stored.hash, derived.count) == 0
    }

    /// The password's bytes in Unicode's composed form (NFC): "é" typed as one
    /// character or as "e" and an accent is one password, whichever keyboard
    /// or system typed it.
    static func normalized(_ password: String) -> [UInt8] {
        password.composedUTF8
    }

    private static func derive(_ utf8: [UInt8], salt: [UInt8], parameters: Parameters) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: hashBytes)
        let done = utf8.withUnsafeBufferPointer { passwordBytes in
            passwordBytes.withMemoryRebound(to: CChar.self) { pass in
                EVP_PBE_scrypt(pass.baseAddress, pass.count, salt, salt.count, parameters.n, parameters.r, parameters.p,
                               parameters.memoryBytes + (1 << 20), &key, key.count)
            }
        }
        // Fails only for parameters out of range or no memory: nothing to go on with.
        precondition(done == 1, "scrypt failed for N \(parameters.n), r \(parameters.r), p \(parameters.p)")
        return key
    }

    private static func randomSalt() -> [UInt8] {
        var salt = [UInt8](repeating: 0, count: saltBytes)
        precondition(RAND_bytes(&salt, Int32(saltBytes)) == 1, "no random bytes from libcrypto")
        return salt
    }
}
