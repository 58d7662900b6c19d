import Foundation
import TailorApp
import TailorHTTP

/// A real server on 127.0.0.1 with a kernel-chosen port, serving a temporary
/// public folder; the test's routes are added to the application's.
final class TestServer {
    let server: HTTPServer
    let publicFolder: URL
    var port: Int { server.port }

    /// - Parameters:
    ///   - configure: changes to the default limits.
    ///   - revalidateFilesAfter: seconds a kept static file is served without a look at the disk.
    ///   - routes: extra routes for the test, beside `/healthz` and `/echo`.
    init(configure: (inout HTTPServerConfiguration) -> Void = { _ in }, revalidateFilesAfter: Double = 0,
         routes: (inout Router) -> Void = { _ in }) throws {
        publicFolder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-public-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: publicFolder, withIntermediateDirectories: true)
        try "<!doctype html><title>Tailor</title>".write(to: publicFolder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.loopCount = 2
        configure(&configuration)
        var router = Router()
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        router.post("/echo") { request in
            HTTPResponse(status: .ok, headers: [HTTPField("Content-Type", "application/octet-stream")], body: .init(request.body))
        }
        routes(&router)
        let files = StaticFiles(root: publicFolder.path, revalidateAfter: revalidateFilesAfter)!
        server = try HTTPServer(configuration: configuration, responder: HTTPResponder(router: router, fallback: files.handler))
        try server.start()
    }

    deinit {
        server.shutdown()
        try? FileManager.default.removeItem(at: publicFolder)
    }

    func write(_ contents: [UInt8], to name: String) throws {
        let url = publicFolder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents).write(to: url)
    }

    func client(timeout: Double = 15, receiveBuffer: Int? = nil) throws -> RawClient {
        try RawClient(port: port, timeout: timeout, receiveBuffer: receiveBuffer)
    }

    /// One request on a new connection.
    func get(_ path: String, headers: [String] = []) throws -> TestResponse {
        let client = try client()
        try client.send("GET \(path) HTTP/1.1\r\nHost: test\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
        return try client.readResponse()
    }

    /// Waits until the server counts `count` open connections, or the timeout passes.
    func waitForConnectionCount(_ count: Int, timeout: Double = 20) -> Bool {
        server.waitForConnections(timeout: timeout) { $0 == count }
    }
}
