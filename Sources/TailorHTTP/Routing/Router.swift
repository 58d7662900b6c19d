/// Finds the handler for a method and path.
///
/// Literal paths are one dictionary lookup; patterns with parameters are tried in
/// the order they were added. HEAD is answered by a GET handler when the route has
/// no HEAD of its own (the connection then drops the body).
public struct Router: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse

    public enum Match: Sendable {
        /// `route` is the pattern the path matched, as registered (`/api/chats/{id}`).
        case handler(Handler, parameters: [(name: String, value: String)], route: String)
        /// The path exists but not with this method; `allowed` is for the `Allow` field.
        case methodNotAllowed(allowed: [HTTPMethod])
        case notFound
    }

    /// A handler held in a struct: a function stored straight in a
    /// dictionary comes back out through a thunk made, and allocated, per lookup.
    private struct Endpoint: Sendable {
        let handle: Handler
    }

    private struct Route: Sendable {
        let pattern: RoutePattern
        var handlers: [HTTPMethod: Endpoint] = [:]
        var methodOrder: [HTTPMethod] = []
    }

    private var literalRoutes: [String: Route] = [:]
    private var patternRoutes: [Route] = []
    /// The first segment of every pattern, when each is a literal (`api`); nil when one is a parameter.
    private var patternHeads: [String]? = []

    public init() {}

    public mutating func add(_ method: HTTPMethod, _ path: String, _ handler: @escaping Handler) {
        let pattern = RoutePattern(path)
        func insert(into route: inout Route) {
            if route.handlers.updateValue(Endpoint(handle: handler), forKey: method) == nil { route.methodOrder.append(method) }
        }
        if pattern.hasParameters {
            if let index = patternRoutes.firstIndex(where: { $0.pattern == pattern }) {
                insert(into: &patternRoutes[index])
            } else {
                var route = Route(pattern: pattern)
                insert(into: &route)
                patternRoutes.append(route)
                if case .literal(let head) = pattern.segments.first {
                    if patternHeads?.contains(head) == false { patternHeads?.append(head) }
                } else {
                    patternHeads = nil
                }
            }
        } else {
            insert(into: &literalRoutes[path, default: Route(pattern: pattern)])
        }
    }

    /// Every route: its pattern, as registered, and the methods it has a
    /// handler for, in the order they were added (HEAD, answered by GET, is not one).
    public var table: [(pattern: String, methods: [HTTPMethod])] {
        (literalRoutes.sorted { $0.key < $1.key }.map(\.value) + patternRoutes).map { ($0.pattern.text, $0.methodOrder) }
    }

    public mutating func get(_ path: String, _ handler: @escaping Handler) { add(.get, path, handler) }
    public mutating func post(_ path: String, _ handler: @escaping Handler) { add(.post, path, handler) }
    public mutating func put(_ path: String, _ handler: @escaping Handler) { add(.put, path, handler) }
    public mutating func patch(_ path: String, _ handler: @escaping Handler) { add(.patch, path, handler) }
    public mutating func delete(_ path: String, _ handler: @escaping Handler) { add(.delete, path, handler) }

    public func match(_ method: HTTPMethod, path: String) -> Match {
        if let route = literalRoutes[path] {
            return select(method, in: route, parameters: [])
        }
        guard !patternRoutes.isEmpty, patternsMayMatch(path) else { return .notFound }
        let parts = Self.segments(of: path)
        let segments = parts.last == "" ? Array(parts.dropLast()) : parts
        for route in patternRoutes {
            if let parameters = route.pattern.match(segments) {
                return select(method, in: route, parameters: parameters)
            }
        }
        return .notFound
    }

    /// False when no pattern can match `path`: its first segment is none of
    /// the patterns' first literals. Most paths that are not routes (static
    /// files) end here, without being split.
    private func patternsMayMatch(_ path: String) -> Bool {
        guard let heads = patternHeads, !path.isEmpty else { return true }
        let first = Self.segment(of: path, from: path.utf8.index(after: path.startIndex))
        return heads.contains { $0 == first }
    }

    /// The segments of `path` after its leading `/`, empty ones kept.
    private static func segments(of path: String) -> [Substring] {
        var segments: [Substring] = []
        guard !path.isEmpty else { return segments }
        var start = path.utf8.index(after: path.startIndex)
        while true {
            let segment = segment(of: path, from: start)
            segments.append(segment)
            guard segment.endIndex < path.endIndex else { return segments }
            start = path.utf8.index(after: segment.endIndex)
        }
    }

    /// The segment of `path` that starts at `start`, up to the next `/`. Found
    /// on the bytes: a `/` is never part of a longer character.
    private static func segment(of path: String, from start: String.Index) -> Substring {
        path[start..<(path.utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? path.endIndex)]
    }

    private func select(_ method: HTTPMethod, in route: Route, parameters: [(name: String, value: String)]) -> Match {
        if let endpoint = route.handlers[method] ?? (method == .head ? route.handlers[.get] : nil) {
            return .handler(endpoint.handle, parameters: parameters, route: route.pattern.text)
        }
        var allowed = route.methodOrder
        if allowed.contains(.get) && !allowed.contains(.head) {
            allowed.insert(.head, at: allowed.firstIndex(of: .get)! + 1)
        }
        return .methodNotAllowed(allowed: allowed)
    }
}
