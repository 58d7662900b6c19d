import Foundation
import TailorTestSupport
import Testing

/// `Tests/Push/push_service.py` run as a process: a push service on
/// 127.0.0.1 over HTTPS with a throwaway authority, browsers' keys of its own,
/// and a line for every push it takes, checked and decrypted by code that is
/// not the server's.
final class PushServiceStandIn {
    let folder: URL
    let process = Process()
    let caFile: String
    /// `127.0.0.1:PORT`, as a server is told to allow it (`--push-hosts`).
    let host: String
    /// Each browser's subscription, as `PushSubscription.toJSON()` gives it.
    let subscriptions: [String]
    let endpoints: [String]
    private let lines = LineQueue()

    /// `behaviours`: subscription index to `410`, `429` or `hang`.
    init(subscriptions count: Int, behaviours: [Int: String] = [:]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-push-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Push/push_service.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, folder.path, String(count)] + behaviours.map { "\($0.key)=\($0.value)" }
        let output = Pipe()
        process.standardOutput = output
        try SpawnGate.run(process)
        let queue = lines
        Thread {
            var buffer: [UInt8] = []
            while true {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                buffer += data
                while let newline = buffer.firstIndex(of: 10) {
                    queue.put(String(decoding: buffer[..<newline], as: UTF8.self))
                    buffer.removeSubrange(...newline)
                }
            }
        }.start()
        let first = try #require(lines.next(timeout: 20), "the push service stand-in did not start")
        let start = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        caFile = try #require(start["ca"] as? String)
        host = "127.0.0.1:\(try #require(start["port"] as? Int))"
        let made = try #require(start["subscriptions"] as? [[String: Any]])
        subscriptions = try made.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        endpoints = made.compactMap { $0["endpoint"] as? String }
    }

    deinit {
        process.terminate()
        // Polled, as `ShutdownTests` does: waiting on the run loop here can miss the exit.
        _ = eventually(interval: 0.01) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The next push it took, or nil when none comes within `timeout` seconds.
    func nextPush(timeout: Double = 20) throws -> [String: Any]? {
        guard let line = lines.next(timeout: timeout) else { return nil }
        return try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    /// Lines handed from the reading thread to the test.
    private final class LineQueue: @unchecked Sendable {
        private let condition = NSCondition()
        private var lines: [String] = []

        func put(_ line: String) {
            condition.lock()
            lines.append(line)
            condition.signal()
            condition.unlock()
        }

        func next(timeout: Double) -> String? {
            let deadline = Date().addingTimeInterval(timeout)
            condition.lock()
            defer { condition.unlock() }
            while lines.isEmpty {
                if !condition.wait(until: deadline) { return nil }
            }
            return lines.removeFirst()
        }
    }
}
