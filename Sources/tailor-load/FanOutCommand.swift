import ArgumentParser
import Glibc
import Synchronization
import TailorLoop

/// `tailor-load fanout`: holds many event streams on one topic, makes one change,
/// and reports how long the streams took to receive it, and the server's memory
/// per idle stream.
struct FanOutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "Open N event streams on one topic, change it once, and time the delivery."
    )

    @Option(help: "Server port on 127.0.0.1.")
    var port: Int

    @Option(help: "Bearer token of the user whose topic the streams follow.")
    var token: String

    @Option(help: "Streams to hold open.")
    var streams = 10_000

    @Option(help: "The topic the streams follow; its event name is the part before any colon.")
    var topic = "orders"

    @Option(help: "The change, as METHOD PATH JSON, e.g. 'POST /api/orders {...}'.")
    var change: String

    @Option(help: "The server's process id, to read its memory from /proc.")
    var serverPID: Int32?

    @Option(help: "Seconds to wait for every stream to receive the change.")
    var timeout = 30.0

    func run() throws {
        ProcessSetup.prepareServerProcess()
        let group = try EventLoopGroup(loopCount: 2)
        let eventName = Array("event: \(topic.split(separator: ":")[0])\n".utf8)
        let request = SharedBytes("GET /api/events?topics=\(topic) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n")
        let progress = Progress()
        let rssBefore = serverPID.map { ProcessProbe(pid: $0).residentKiB.now } ?? 0

        // Open the streams in steps, so the listener's backlog is never flooded.
        var opened = 0
        while opened < streams {
            let step = min(500, streams - opened)
            for _ in 0..<step {
                let loop = group.next()
                loop.execute {
                    Task(executorPreference: loop) {
                        await Self.follow(loop: loop, port: port, request: request, eventName: eventName, progress: progress)
                    }
                }
            }
            opened += step
            let giveUp = MonotonicClock.after(seconds: 20)
            while progress.ready + progress.failed < opened && MonotonicClock.now < giveUp { usleep(2_000) }
        }
        guard progress.failed == 0 else {
            throw ValidationError("\(progress.failed) of \(streams) streams failed to open")
        }
        usleep(500_000)
        let rssIdle = serverPID.map { ProcessProbe(pid: $0).residentKiB.now } ?? 0

        // One change, timed from just before it is sent.
        let cpuBefore = serverPID.map { ProcessProbe(pid: $0).cpuTime }
        let start = MonotonicClock.now
        progress.start(at: start)
        try Self.send(change: change, port: port, token: token)
        let giveUp = MonotonicClock.after(seconds: timeout)
        while progress.received < streams && MonotonicClock.now < giveUp { usleep(1_000) }
        let cpuAfter = serverPID.map { ProcessProbe(pid: $0).cpuTime }

        let delays = progress.delays.sorted()
        func percentile(_ fraction: Double) -> Double {
            guard !delays.isEmpty else { return .nan }
            return Double(delays[min(delays.count - 1, Int(Double(delays.count) * fraction))]) / 1_000_000
        }
        print("streams \(streams) received \(delays.count)")
        let maximum = Double(delays.last ?? 0) / 1_000_000
        print("delivery ms p50 \(LoadReport.number(percentile(0.5), 2)) p99 \(LoadReport.number(percentile(0.99), 2)) max \(LoadReport.number(maximum, 2))")
        if serverPID != nil {
            let perStream = Double(rssIdle - rssBefore) / Double(streams)
            print("server RSS KiB before \(rssBefore) with streams \(rssIdle) per stream \(LoadReport.number(perStream, 2))")
            if let cpuBefore, let cpuAfter {
                // Where the delivery's time went: our code, or the kernel's TCP.
                let user = (cpuAfter.user - cpuBefore.user) * 1000, system = (cpuAfter.system - cpuBefore.system) * 1000
                print("server CPU ms during delivery: user \(LoadReport.number(user, 2)) system \(LoadReport.number(system, 2))")
            }
        }
    }

    /// One stream: subscribe, wait for the initial event, then for the change.
    static func follow(loop: EventLoop, port: Int, request: SharedBytes, eventName: [UInt8], progress: Progress) async {
        guard let socket = try? loop.connect(host: "127.0.0.1", port: port) else {
            progress.fail()
            return
        }
        defer { socket.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 1)
        defer { buffer.deallocate() }
        do {
            try await socket.write(request)
            var seen = 0
            var tail: [UInt8] = []
            while true {
                let count = try await socket.read(into: buffer)
                guard count > 0 else {
                    progress.fail()
                    return
                }
                let bytes = tail + Array(buffer[0..<count])
                let found = occurrences(of: eventName, in: bytes)
                tail = Array(bytes.suffix(eventName.count - 1))
                for _ in 0..<found {
                    seen += 1
                    if seen == 1 { progress.readyOne() }
                    if seen == 2 {
                        progress.receivedOne(at: MonotonicClock.now)
                        return
                    }
                }
            }
        } catch {
            progress.fail()
        }
    }

    static func occurrences(of needle: [UInt8], in bytes: [UInt8]) -> Int {
        var count = 0
        var rest = bytes[...]
        while let found = rest.firstIndex(ofBytes: needle) {
            count += 1
            rest = rest[(found + needle.count)...]
        }
        return count
    }

    /// Sends the change on its own blocking connection and reads the status line.
    static func send(change: String, port: Int, token: String) throws {
        let parts = change.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count >= 2 else { throw ValidationError("--change must be METHOD PATH [JSON]") }
        let body = parts.count > 2 ? parts[2] : ""
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw ValidationError("cannot connect to port \(port)") }
        defer { close(fd) }
        let text = "\(parts[0]) \(parts[1]) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        var reply = [UInt8](repeating: 0, count: 512)
        let count = reply.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        let status = String(decoding: reply[0..<max(count, 0)], as: UTF8.self).split(separator: "\r\n").first ?? ""
        guard status.contains(" 200 ") || status.contains(" 201 ") else { throw ValidationError("the change was refused: \(status)") }
    }

}

/// Counts shared by the streams' tasks on both loops.
final class Progress: Sendable {
    private struct State {
        var ready = 0
        var failed = 0
        var start: UInt64 = 0
        var delays: [UInt64] = []
    }

    private let state = Mutex(State())

    var ready: Int { state.withLock { $0.ready } }
    var failed: Int { state.withLock { $0.failed } }
    var received: Int { state.withLock { $0.delays.count } }
    var delays: [UInt64] { state.withLock { $0.delays } }

    func readyOne() { state.withLock { $0.ready += 1 } }
    func fail() { state.withLock { $0.failed += 1 } }
    func start(at time: UInt64) { state.withLock { $0.start = time } }
    func receivedOne(at time: UInt64) { state.withLock { $0.delays.append(time - $0.start) } }
}
