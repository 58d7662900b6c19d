import CLibCrypto

/// SHA-256 (FIPS 180-4), for storing tokens as hashes: OpenSSL's libcrypto,
/// maintained and using the processor's SHA instructions where it has them.
/// A system library like SQLite and libpq: no package that brings Foundation
/// and its ICU data into the server. Checked against the standard's test vectors.
enum SHA256 {
    /// A digest as a value of fixed size: made, compared and hashed as a
    /// dictionary key without a heap allocation, as a token's is on every request.
    struct Digest: Hashable, Sendable {
        private let words: (UInt64, UInt64, UInt64, UInt64)

        static let byteCount = 32

        /// The digest of this size read back, as the store keeps it; nil for any other size.
        init?(_ bytes: [UInt8]) {
            guard bytes.count == Self.byteCount else { return nil }
            words = bytes.withUnsafeBytes { raw in
                (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                 raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            }
        }

        fileprivate init(words: (UInt64, UInt64, UInt64, UInt64)) {
            self.words = words
        }

        /// The digest's bytes, in the standard's order.
        var bytes: [UInt8] {
            withUnsafeBytes(of: words) { Array($0) }
        }

        static func == (a: Digest, b: Digest) -> Bool {
            a.words == b.words
        }

        func hash(into hasher: inout Hasher) {
            withUnsafeBytes(of: words) { hasher.combine(bytes: $0) }
        }
    }

    static func hash(_ message: [UInt8]) -> Digest {
        message.withUnsafeBytes { hash($0) }
    }

    /// The digest of bytes read in place (a token in its header, say).
    static func hash(_ message: UnsafeRawBufferPointer) -> Digest {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { digest in
            tailor_sha256(message.baseAddress, message.count, digest.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return Digest(words: words)
    }
}
