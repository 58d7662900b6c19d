import TailorHTTP

/// `?offset=` and `?limit=`, which choose the page of a list: 422 outside
/// their ranges.
struct PageParameters {
    var offset: Int
    var limit: Int

    static let maxOffset = 1_000_000

    init(_ request: HTTPRequest, defaultLimit: Int, maxLimit: Int) throws {
        offset = 0
        limit = defaultLimit
        if let text = request.query("offset") {
            guard let value = Int(text), (0...Self.maxOffset).contains(value) else {
                throw APIError.invalidQuery("offset must be 0 to \(Self.maxOffset).")
            }
            offset = value
        }
        if let text = request.query("limit") {
            guard let value = Int(text), (1...maxLimit).contains(value) else { throw APIError.invalidQuery("limit must be 1 to \(maxLimit).") }
            limit = value
        }
    }
}
