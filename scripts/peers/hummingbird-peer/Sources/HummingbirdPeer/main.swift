import Foundation
import Hummingbird

// Usage: HummingbirdPeer PORT PAYLOAD_FILE
// Serves GET /orders.json (the payload, read once, from memory) and GET /healthz,
// as Tailor does in the benchmark.
let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8081 : 8081
let payloadPath = arguments.count > 2 ? arguments[2] : "orders.json"
let payload = ByteBuffer(data: try Data(contentsOf: URL(fileURLWithPath: payloadPath)))
let health = ByteBuffer(string: #"{"status":"ok"}"#)
let json: HTTPFields = [.contentType: "application/json; charset=utf-8"]

let router = Router()
router.get("orders.json") { _, _ in
    Response(status: .ok, headers: json, body: .init(byteBuffer: payload))
}
router.get("healthz") { _, _ in
    Response(status: .ok, headers: json, body: .init(byteBuffer: health))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
