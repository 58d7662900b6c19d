/// A path pattern such as `/api/chats/{id}/messages`: literal segments and
/// `{name}` segments that capture one path segment each.
struct RoutePattern: Sendable, Hashable {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    let text: String
    let segments: [Segment]

    init(_ text: String) {
        precondition(text.hasPrefix("/"), "a route pattern starts with /: \(text)")
        self.text = text
        segments = text.split(separator: "/").map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}")
                ? .parameter(String(segment.dropFirst().dropLast()))
                : .literal(String(segment))
        }
    }

    var hasParameters: Bool {
        segments.contains { if case .parameter = $0 { true } else { false } }
    }

    /// The captured values when `path` (already split) matches, else nil.
    func match(_ path: [Substring]) -> [(name: String, value: String)]? {
        guard path.count == segments.count else { return nil }
        var captured: [(name: String, value: String)] = []
        for (segment, part) in zip(segments, path) {
            switch segment {
            case .literal(let literal):
                guard literal == part else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                captured.append((name, String(part)))
            }
        }
        return captured
    }
}
