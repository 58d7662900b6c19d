import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests to one server as one user: the base address, the token, and
/// the answers decoded or turned into the server's error.
struct APIConnection: Sendable {
    let baseURL: URL
    let token: String?
    let session: URLSession
    /// Told of every 401: the token is no longer valid.
    var unauthorized: @Sendable () -> Void = {}

    func request(_ method: String, _ path: String, query: [URLQueryItem] = [], body: JSONValue? = nil,
                 headers: [String: String] = [:]) -> URLRequest {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        let (pathOnly, pathQuery) = Self.split(path)
        components.percentEncodedPath = components.percentEncodedPath.trimmingSuffix("/") + pathOnly
        let items = (pathQuery ?? []) + query
        components.queryItems = items.isEmpty ? nil : items
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.jsonText.utf8)
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// Sends a request and gives the answer's JSON (`.null` for 204).
    func send(_ method: String, _ path: String, query: [URLQueryItem] = [], body: JSONValue? = nil) async throws(TailorError) -> JSONValue {
        let request = request(method, path, query: query, body: body)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw .unreachable(error)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status == 401 { unauthorized() }
        guard (200..<300).contains(status) else { throw Self.error(status: status, body: data) }
        if status == 204 || data.isEmpty { return .null }
        do {
            return try JSONValue.parse(data)
        } catch {
            throw TailorError(status: status, code: "invalid_answer", message: "The server's answer is not JSON: \(error)")
        }
    }

    /// `send`, the answer decoded as `Value`.
    func send<Value: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [], body: JSONValue? = nil,
                                as type: Value.Type) async throws(TailorError) -> Value {
        let json = try await send(method, path, query: query, body: body)
        do {
            return try json.decoded(as: type)
        } catch {
            throw TailorError(status: 200, code: "invalid_answer", message: "The server's answer is not a \(type): \(error)")
        }
    }

    /// The server's `{"error": {"code", "message"}}`, or what the status says.
    static func error(status: Int, body: Data) -> TailorError {
        struct Answer: Decodable {
            struct Detail: Decodable { let code: String; let message: String }
            let error: Detail
        }
        // A body that is no error object (a proxy's page, nothing at all) says no more than its status.
        if let answer = try? JSONDecoder().decode(Answer.self, from: body) {
            return TailorError(status: status, code: answer.error.code, message: answer.error.message)
        }
        return TailorError(status: status, code: "http_\(status)", message: "The server answered \(status).")
    }

    /// An action's href may carry its own query (`/api/chats/7?before=12`).
    private static func split(_ path: String) -> (String, [URLQueryItem]?) {
        guard let mark = path.firstIndex(of: "?") else { return (path, nil) }
        let query = URLComponents(string: "http://x/?" + path[path.index(after: mark)...])?.queryItems
        return (String(path[..<mark]), query)
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
