/// An answer read by the load client: what the scenario checks, nothing more.
struct ClientResponse: Sendable {
    let status: Int
    let etag: String?
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The string value of `"name":"…"` in the body: enough for ids and tokens,
    /// which never hold escapes.
    func field(_ name: String) -> String? {
        JSONScan.string(named: name, in: body[...])
    }
}
