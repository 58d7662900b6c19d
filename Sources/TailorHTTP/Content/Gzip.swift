import CZlib

/// gzip (RFC 1952) through zlib, for representations compressed once and kept.
public enum Gzip {
    /// `bytes` gzip-compressed at the best level (it is done once per version).
    public static func compress(_ bytes: UnsafeRawBufferPointer, level: Int32 = 9) -> [UInt8] {
        var stream = z_stream()
        // windowBits 15 + 16 asks zlib for a gzip wrapper instead of zlib's own.
        let status = deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                                   ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2 failed: \(status)")
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 32)
        let written = output.withUnsafeMutableBufferPointer { out -> Int in
            stream.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(bytes.count)
            stream.next_out = out.baseAddress
            stream.avail_out = uInt(out.count)
            let result = deflate(&stream, Z_FINISH)
            precondition(result == Z_STREAM_END, "deflate did not finish: \(result)")
            return out.count - Int(stream.avail_out)
        }
        output.removeSubrange(written...)
        return output
    }

    public static func compress(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { compress($0) }
    }

    /// The bytes a gzip stream holds, or nil if it is not valid gzip or would
    /// exceed `limit` bytes.
    public static func decompress(_ bytes: [UInt8], limit: Int = 64 * 1024 * 1024) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        return bytes.withUnsafeBytes { input -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, out.count - Int(stream.avail_out))
                }
                output += chunk[0..<produced]
                if output.count > limit { return nil }
                if status == Z_STREAM_END { return output }
                if status != Z_OK { return nil }
            }
        }
    }
}
