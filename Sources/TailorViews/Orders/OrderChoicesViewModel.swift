import TailorStore

/// What an orders screen lets a person choose, so that a page draws its
/// controls from the server's own lists instead of repeating them: the
/// list's sorts, layouts and status filters, and the currencies a new order
/// may use with how many minor units make one unit (the API counts prices in
/// minor units, people type them in units). The same for every list.
package struct OrderChoicesViewModel: JSONWritable, Equatable, Sendable {
    package let sort: [ChoiceViewModel]
    package let layout: [ChoiceViewModel]
    /// The first choice, value "", shows every status.
    package let status: [ChoiceViewModel]
    package let currencies: [CurrencyViewModel]

    package static let all = OrderChoicesViewModel(
        sort: OrderSort.allCases.map { ChoiceViewModel(value: $0.rawValue, label: label($0)) },
        layout: OrdersQuery.Layout.allCases.map { ChoiceViewModel(value: $0.rawValue, label: label($0)) },
        status: [ChoiceViewModel(value: "", label: "Any")]
            + OrderStatus.allCases.map { ChoiceViewModel(value: $0.rawValue, label: OrderViewModelBuilder.label($0)) },
        currencies: Currency.allCases.map { CurrencyViewModel(code: $0.rawValue, minorUnits: $0.minorUnitsPerUnit) })

    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("currencies", currencies)
            $0.field("layout", layout)
            $0.field("sort", sort)
            $0.field("status", status)
        }
    }

    private static func label(_ sort: OrderSort) -> String {
        switch sort {
        case .newest: "Newest"
        case .oldest: "Oldest"
        case .total: "Total"
        }
    }

    private static func label(_ layout: OrdersQuery.Layout) -> String {
        switch layout {
        case .list: "List"
        case .compact: "Compact"
        }
    }
}

/// One option of a control: the value a query carries and the text shown.
package struct ChoiceViewModel: JSONWritable, Equatable, Sendable {
    package let value: String
    package let label: String

    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("label", label)
            $0.field("value", value)
        }
    }
}

/// A currency orders accept: its code and how many minor units make one unit
/// (100 cents in a dollar, 1 for the yen, which has none).
package struct CurrencyViewModel: JSONWritable, Equatable, Sendable {
    package let code: String
    package let minorUnits: Int

    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("code", code)
            $0.field("minorUnits", minorUnits)
        }
    }
}
