extension StringProtocol where UTF8View: BidirectionalCollection {
    /// The text without leading and trailing white space (Unicode's, newlines included).
    package var trimmed: String {
        hasNothingToTrim ? String(self) : String(trimmedSlice)
    }

    /// `trimmed` as a slice of the text: nothing copied.
    private var trimmedSlice: SubSequence {
        if hasNothingToTrim { return self[...] }
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }

    /// Most texts trimmed here are tokens and header values with nothing to
    /// trim. Their ends are seen from two bytes: a visible ASCII byte is a
    /// character of its own or the end of one that starts with no white
    /// space, while walking characters costs a grapheme break search each.
    private var hasNothingToTrim: Bool {
        guard let head = utf8.first, let tail = utf8.last else { return false }
        return Self.isVisibleASCII(head) && Self.isVisibleASCII(tail)
    }

    private static func isVisibleASCII(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }
}
