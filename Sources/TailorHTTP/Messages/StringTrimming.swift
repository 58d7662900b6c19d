extension StringProtocol where UTF8View: BidirectionalCollection {
    /// The text without leading and trailing white space (Unicode's, newlines included).
    package var trimmed: String {
        // Most texts trimmed here are tokens and header values with nothing to
        // trim. Their ends are seen from two bytes: a visible ASCII byte is a
        // character of its own or the end of one that starts with no white
        // space, while walking characters costs a grapheme break search each.
        if let head = utf8.first, let tail = utf8.last, Self.isVisibleASCII(head), Self.isVisibleASCII(tail) {
            return String(self)
        }
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }

    private static func isVisibleASCII(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }
}
