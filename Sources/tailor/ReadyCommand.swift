import ArgumentParser
import Glibc
import TailorApp

/// `tailor ready`: whether the server on this machine's port is ready, for a
/// container's health check (an image that holds the binary and its libraries
/// only has no curl to ask with).
struct ReadyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ready",
        abstract: "Asks the server on this machine whether it is ready: exits 0 when GET /readyz answers 200, else 1.",
        discussion: """
            For a container's health check. The server is asked on 127.0.0.1 at --port, \
            which TAILOR_PORT gives as it does to `tailor serve`; the answer's status line \
            and body are printed.
            """
    )

    @Option(help: "The server's port (\(TailorConfiguration().server.port)); also TAILOR_PORT.")
    var port: Int?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 3

    func run() throws {
        var settings = SettingsResolver()
        let port = try settings.value(port, "port", default: TailorConfiguration().server.port)
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be between 1 and 65535") }
        switch ReadinessQuestion(port: port, timeout: timeout).ask() {
        case .answered(let head) where head.hasPrefix("HTTP/1.1 200"):
            print(head)
        case .answered(let head):
            print(head)
            throw ExitCode.failure
        case .unreachable(let reason):
            print("no answer from 127.0.0.1:\(port): \(reason)")
            throw ExitCode.failure
        }
    }
}

/// One `GET /readyz` over a plain socket, read until the server closes it.
private struct ReadinessQuestion {
    enum Outcome {
        /// The answer's status line, and its body when short.
        case answered(String)
        case unreachable(String)
    }

    let port: Int
    let timeout: Double

    func ask() -> Outcome {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return .unreachable(String(cString: strerror(errno))) }
        defer { close(socket) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            setsockopt(socket, SOL_SOCKET, option, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return .unreachable(String(cString: strerror(errno))) }
        let request = Array("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard send(socket, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            return .unreachable(String(cString: strerror(errno)))
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while answer.count < 64 * 1024 {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count > 0 { answer += buffer[..<count]; continue }
            if count < 0, answer.isEmpty { return .unreachable(String(cString: strerror(errno))) }
            break
        }
        let text = String(decoding: answer, as: UTF8.self)
        guard text.hasPrefix("HTTP/") else { return .unreachable("not an HTTP answer") }
        // "\r\n" is one Character: the lines are split on it whole.
        let statusLine = text.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? text
        let body = text.split(separator: "\r\n\r\n", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        return .answered(body.isEmpty || body.count > 300 ? String(statusLine) : "\(statusLine) \(body)")
    }
}
