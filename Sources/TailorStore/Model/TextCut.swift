package extension String {
    /// The longest start of the text that is at most `limit` bytes of UTF-8,
    /// ending where a Unicode scalar does. Takes as long for any text: it
    /// counts bytes, never characters (a character may be any number of
    /// bytes, and finding where characters end walks the whole text).
    func prefix(bytes limit: Int) -> String {
        let utf8 = self.utf8
        guard utf8.count > limit else { return self }
        var end = utf8.index(utf8.startIndex, offsetBy: limit)
        // A byte 10xxxxxx continues a scalar: the cut goes before its first byte.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }
}
