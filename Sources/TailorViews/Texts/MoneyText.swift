/// Money in the currencies orders accept: `$1,234.50`, `€2.58`, `£2.58`, `¥258`.
package enum Currency: String, CaseIterable, Sendable {
    case usd = "USD", eur = "EUR", gbp = "GBP", jpy = "JPY"

    package var symbol: String {
        switch self {
        case .usd: "$"
        case .eur: "€"
        case .gbp: "£"
        case .jpy: "¥"
        }
    }

    /// Digits after the decimal point; the yen has no minor unit.
    package var fractionDigits: Int { self == .jpy ? 0 : 2 }

    /// Minor units in one unit: 100 cents in a dollar, 1 for the yen.
    package var minorUnitsPerUnit: Int { fractionDigits == 0 ? 1 : 100 }

    /// `minorUnits` of this currency as text.
    package func format(_ minorUnits: Int) -> String {
        let divisor = minorUnitsPerUnit
        let whole = minorUnits / divisor
        var text = symbol + Self.grouped(whole)
        if fractionDigits > 0 {
            let cents = minorUnits % divisor
            text += "." + (cents < 10 ? "0\(cents)" : "\(cents)")
        }
        return text
    }

    private static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return result
    }
}
