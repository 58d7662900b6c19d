@testable import TailorHTTP
import Testing

@Suite struct ChunkedBodyDecoderTests {
    private func decodeSplit(_ raw: String, at split: Int, limit: Int = 1000) -> (ChunkedBodyDecoder.Progress, String) {
        let bytes = Array(raw.utf8)
        var decoder = ChunkedBodyDecoder(maxBodyBytes: limit)
        var pending: [UInt8] = []
        var progress = ChunkedBodyDecoder.Progress.needMoreData
        for piece in [bytes[0..<split], bytes[split...]] {
            pending += piece
            let (result, consumed) = pending.withUnsafeBytes { decoder.decode($0) }
            pending.removeFirst(consumed)
            progress = result
            if result != .needMoreData { break }
        }
        return (progress, String(decoding: decoder.body, as: UTF8.self))
    }

    @Test func decodesAtEverySplit() {
        let raw = "4\r\nWiki\r\n5;ext=1\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nTrailer: x\r\n\r\n"
        for split in 0...raw.utf8.count {
            let (progress, body) = decodeSplit(raw, at: split)
            #expect(progress == .finished, "split \(split)")
            #expect(body == "Wikipedia in\r\n\r\nchunks.", "split \(split)")
        }
    }

    @Test func stopsAtTheEndOfTheBody() {
        var decoder = ChunkedBodyDecoder(maxBodyBytes: 100)
        let raw = Array("3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1".utf8)
        let (progress, consumed) = raw.withUnsafeBytes { decoder.decode($0) }
        #expect(progress == .finished)
        #expect(consumed == raw.count - "GET / HTTP/1.1".utf8.count)
    }

    @Test(arguments: [
        ("x\r\n", 400), ("3\r\nabcX", 400), ("3\nabc", 400), ("3 \u{01}\r\n", 400),
        ("FFFFFFFFFFFFFFFFFFFF\r\n", 413), ("3E9\r\n", 413),
    ])
    func refusesMalformedOrTooLarge(raw: String, status: Int) {
        var decoder = ChunkedBodyDecoder(maxBodyBytes: 1000)
        let (progress, _) = Array(raw.utf8).withUnsafeBytes { decoder.decode($0) }
        guard case .failure(let error) = progress else {
            Issue.record("\(raw.debugDescription) gave \(progress)")
            return
        }
        #expect(error.status.code == status)
    }
}
