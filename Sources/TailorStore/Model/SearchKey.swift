/// What an order's search looks in: its name and its items' titles, folded
/// (`folded`) and stored beside them, so that a search ignores case in every
/// script and reads the same on SQLite, whose `lower()` folds ASCII only, and
/// on PostgreSQL, whatever its locale.
package enum SearchKey {
    /// Between the texts of one key: a control character, which no stored
    /// text keeps at its ends and no search means to cross.
    static let separator = "\u{1F}"

    /// The key of an order named `name` with items titled `titles`.
    package static func of(name: String, titles: [String]) -> String {
        ([name] + titles).map(folded).joined(separator: separator)
    }

    /// `text` as searches compare it: in lower case by Unicode's full mapping,
    /// in composed form (NFC), with the two letters whose lower case is not
    /// their folded form folded (ß as ss, final ς as σ), so that "ÄPFEL"
    /// finds "äpfel", "STRASSE" finds "Straße", and an "é" typed as "e" and
    /// an accent finds one typed as one character.
    package static func folded(_ text: String) -> String {
        var lowered = text.lowercased()
        if lowered.unicodeScalars.contains(where: { $0 == "ß" || $0 == "ς" }) {
            lowered = lowered.replacing("ß", with: "ss").replacing("ς", with: "σ")
        }
        return lowered.composed
    }
}

package extension String {
    /// The text's UTF-8 in Unicode's composed form (NFC), made by the standard
    /// library's own normalizer (the one its string comparison uses): no ICU.
    var composedUTF8: [UInt8] {
        Array(_nfcCodeUnits)
    }

    /// The text in Unicode's composed form (NFC).
    var composed: String {
        String(decoding: _nfcCodeUnits, as: UTF8.self)
    }
}
