import ArgumentParser
import CSystem
import Glibc
import TailorLoop
import TailorWire

/// `tailor-load fanout`: holds many event streams on one topic, makes one change,
/// and reports how long the streams took to receive it, and the server's memory
/// per idle stream. With several servers of one database (`--port` given more
/// than once) the streams are shared out over them in turn, and the change
/// goes through the first.
struct FanOutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "Open N event streams on one topic, change it once, and time the delivery."
    )

    @Option(help: "Server port on 127.0.0.1; more than once for several servers of one database.")
    var port: [Int]

    @Option(help: "Bearer token of the user whose topic the streams follow.")
    var token: String

    @Option(help: "Streams to hold open.")
    var streams = 10_000

    @Option(help: "The topic the streams follow; its event name is the part before any colon.")
    var topic = "orders"

    @Option(help: "The change, as METHOD PATH JSON, e.g. 'POST /api/orders {...}'.")
    var change: String

    @Option(help: "The server's process id, to read its memory and CPU from /proc; once per --port, in the same order.")
    var serverPID: [Int32] = []

    @Option(help: "Seconds to wait for every stream to receive the change.")
    var timeout = 30.0

    @Option(help: "Times the change is made, each once every stream has the one before (a POST that adds to the view model makes it grow).")
    var changes = 1

    func validate() throws {
        guard serverPID.isEmpty || serverPID.count == port.count else { throw ValidationError("give --server-pid once per --port, or not at all") }
    }

    func run() throws {
        ProcessSetup.prepareServerProcess()
        guard let eventName = StreamTopic(name: topic)?.eventName else { throw ValidationError("there is no topic \(topic)") }
        let request = Array("GET /api/events?topics=\(topic) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8)
        // One watcher per CPU the client may use.
        let watchers = try (0..<max(1, Int(csystem_usable_cpu_count()))).map { _ in try EventStreamWatcher(eventName: eventName) }
        var sockets: [Int32] = []
        defer {
            for watcher in watchers { watcher.stop() }
            for fd in sockets { close(fd) }
        }
        var ready: Int { watchers.reduce(0) { $0 + $1.ready } }
        var failed: Int { watchers.reduce(0) { $0 + $1.failed } }
        let servers = serverPID.map(ProcessProbe.init(pid:))
        let rssBefore = servers.map(\.residentKiB.now)

        // Open the streams in steps, so the listener's backlog is never flooded.
        while sockets.count < streams {
            for _ in 0..<min(500, streams - sockets.count) {
                let serverPort = port[sockets.count % port.count]
                let fd = csystem_connect_tcp("127.0.0.1", Int32(serverPort), LoadTarget.loopbackSource(forConnection: sockets.count))
                guard fd >= 0 else { throw SystemError("connect to 127.0.0.1:\(serverPort)") }
                sockets.append(fd)
                guard request.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == request.count else {
                    throw SystemError("write")
                }
                try watchers[sockets.count % watchers.count].watch(fd: fd)
            }
            let giveUp = MonotonicClock.after(seconds: 20)
            while ready + failed < sockets.count && MonotonicClock.now < giveUp { usleep(2_000) }
        }
        guard failed == 0, ready == streams else {
            throw ValidationError("\(streams - ready) of \(streams) streams failed to open")
        }
        usleep(500_000)
        let rssIdle = servers.map(\.residentKiB.now)

        for round in 0..<changes {
            if changes > 1 { print("change \(round + 1) of \(changes):") }
            try measure(change: round, watchers: watchers, servers: servers, rssBefore: rssBefore, rssIdle: rssIdle)
        }
        // Streams the server ended: a stream that reads promptly should never be.
        print("streams ended by the server \(failed)")
    }

    /// Makes the change once, timed from just before it is sent, and prints
    /// how long until every stream had it and what it cost the servers.
    private func measure(change round: Int, watchers: [EventStreamWatcher], servers: [ProcessProbe], rssBefore: [Int], rssIdle: [Int]) throws {
        let cpuBefore = servers.map(\.cpuTime)
        let meterBefore = ProcessProbe.current.cpuTime
        let start = MonotonicClock.now
        try Self.send(change: change, port: port[0], token: token)
        let giveUp = MonotonicClock.after(seconds: timeout)
        var failed: Int { watchers.reduce(0) { $0 + $1.failed } }
        while watchers.reduce(0, { $0 + $1.received(round) }) + failed < streams && MonotonicClock.now < giveUp { usleep(1_000) }
        let cpuAfter = servers.map(\.cpuTime)
        let meterAfter = ProcessProbe.current.cpuTime

        let delays = watchers.flatMap { $0.arrivals(round) }.map { $0 - start }.sorted()
        func percentile(_ fraction: Double) -> Double {
            guard !delays.isEmpty else { return .nan }
            return Double(delays[min(delays.count - 1, Int(Double(delays.count) * fraction))]) / 1_000_000
        }
        print("streams \(streams) received \(delays.count)")
        let maximum = Double(delays.last ?? 0) / 1_000_000
        print("delivery ms p50 \(LoadReport.number(percentile(0.5), 2)) p99 \(LoadReport.number(percentile(0.99), 2)) max \(LoadReport.number(maximum, 2))")
        for index in servers.indices {
            // The streams this server holds: every port.count-th, from its index on.
            let held = (streams - index + port.count - 1) / port.count
            let perStream = Double(rssIdle[index] - rssBefore[index]) / Double(max(held, 1))
            let name = servers.count == 1 ? "server" : "server \(index + 1)"
            print("\(name) RSS KiB before \(rssBefore[index]) with streams \(rssIdle[index]) per stream \(LoadReport.number(perStream, 2))")
            // Where the delivery's time went: our code, or the kernel's TCP.
            let user = (cpuAfter[index].user - cpuBefore[index].user) * 1000, system = (cpuAfter[index].system - cpuBefore[index].system) * 1000
            print("\(name) CPU ms during delivery: user \(LoadReport.number(user, 2)) system \(LoadReport.number(system, 2))")
        }
        // This meter shares the machine: what it took is what the servers could not have.
        let user = (meterAfter.user - meterBefore.user) * 1000, system = (meterAfter.system - meterBefore.system) * 1000
        print("meter CPU ms during delivery: user \(LoadReport.number(user, 2)) system \(LoadReport.number(system, 2))")
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
