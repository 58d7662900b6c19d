/// How long a text may be, in characters as a person counts them and in bytes
/// of UTF-8. Both are needed: a character may be any number of bytes (a letter
/// with half a million combining accents is one), so a limit on characters
/// alone bounds nothing.
struct TextLimit: Sendable {
    let characters: ClosedRange<Int>
    let bytes: Int

    /// Bytes are checked first: they are counted at once, characters by a walk
    /// over the whole text.
    func admits(_ text: String) -> Bool {
        text.utf8.count <= bytes && characters.contains(text.count)
    }

    /// Whether `text` shows anything: a character that is not white space,
    /// a control, or an invisible format character (U+200B and the other zero
    /// widths, direction marks, tags, …). A text of only those is as empty
    /// as one of nothing.
    static func isVisible(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            let properties = scalar.properties
            return !properties.isWhitespace && !properties.isDefaultIgnorableCodePoint
                && ![.format, .control].contains(properties.generalCategory)
        }
    }

    var description: String {
        "\(characters.lowerBound) to \(characters.upperBound) characters and at most \(bytes) bytes of UTF-8"
    }
}
