extension StringProtocol {
    /// The text without leading and trailing white space (Unicode's, newlines included).
    package var trimmed: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
