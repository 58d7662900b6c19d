import CLibCrypto

/// SHA-256 (FIPS 180-4), for storing tokens as hashes: OpenSSL's libcrypto,
/// maintained and using the processor's SHA instructions where it has them.
/// A system library like SQLite and libpq: no package that brings Foundation
/// and its ICU data into the server. Checked against the standard's test vectors.
enum SHA256 {
    static let byteCount = 32

    /// The algorithm fetched from OpenSSL's default provider once: naming it
    /// on each call (`EVP_sha256()`) makes OpenSSL 3 look it up every time.
    /// `nonisolated(unsafe)` because an `OpaquePointer` is not `Sendable`:
    /// the pointer never changes after the fetch, and OpenSSL documents a
    /// fetched algorithm as usable from any thread at once.
    private nonisolated(unsafe) static let algorithm: OpaquePointer = {
        guard let fetched = EVP_MD_fetch(nil, "SHA256", nil) else { preconditionFailure("libcrypto has no SHA-256") }
        return fetched
    }()

    static func hash(_ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBufferPointer { hash($0) }
    }

    /// The digest of bytes read in place (a token in its header, say).
    static func hash(_ message: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let done = digest.withUnsafeMutableBufferPointer { out in
            EVP_Digest(message.baseAddress, message.count, out.baseAddress, &length, algorithm, nil)
        }
        // EVP_Digest fails only without memory or with a broken library: nothing to go on with.
        precondition(done == 1 && length == UInt32(byteCount), "libcrypto's SHA-256 failed")
        return digest
    }
}
