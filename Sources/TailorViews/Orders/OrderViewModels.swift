/// The orders screen (topic `orders`, and its sorted, filtered variants).
package struct OrdersViewModel: JSONWritable, Equatable, Sendable {
    package let title: String
    package let count: Int
    package let sort: String
    package let layout: String
    package let items: [OrderListItemViewModel]
    /// The page after this one, or null.
    package let next: ActionViewModel?

    package func write(to json: inout JSONWriter) {
        json.object {
            // The same for every list: what a page offers to choose.
            $0.field("choices", OrderChoicesViewModel.all)
            $0.field("count", count)
            $0.field("items", items)
            $0.field("layout", layout)
            $0.field("next", next)
            $0.field("sort", sort)
            $0.field("title", title)
        }
    }
}

/// One order in the list: every field in the `list` layout, the short form in `compact`.
package enum OrderListItemViewModel: JSONWritable, Equatable, Sendable {
    case full(OrderViewModel)
    case compact(CompactOrderViewModel)

    package func write(to json: inout JSONWriter) {
        switch self {
        case .full(let order): order.write(to: &json)
        case .compact(let order): order.write(to: &json)
        }
    }
}

package struct CompactOrderViewModel: JSONWritable, Equatable, Sendable {
    package let id: String
    package let name: String
    package let statusLabel: String
    package let total: String
    package let open: ActionViewModel

    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("id", id)
            $0.field("name", name)
            $0.field("open", open)
            $0.field("statusLabel", statusLabel)
            $0.field("total", total)
        }
    }
}

/// An order (topic `order:ID`); in lists without `lines`.
package struct OrderViewModel: JSONWritable, Equatable, Sendable {
    package let id: String
    package let name: String
    package let status: String
    package let statusLabel: String
    package let total: String
    package let totalCents: Int
    package let currency: String
    package let date: String
    package let createdAt: String
    package let itemCount: Int
    package let open: ActionViewModel
    package let actions: [OrderActionViewModel]
    package var lines: [OrderLineViewModel]?

    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("actions", actions)
            $0.field("createdAt", createdAt)
            $0.field("currency", currency)
            $0.field("date", date)
            $0.field("id", id)
            $0.field("itemCount", itemCount)
            if let lines { $0.field("lines", lines) }
            $0.field("name", name)
            $0.field("open", open)
            $0.field("status", status)
            $0.field("statusLabel", statusLabel)
            $0.field("total", total)
            $0.field("totalCents", totalCents)
        }
    }
}

package struct OrderLineViewModel: JSONWritable, Equatable, Sendable {
    package let title: String
    package let quantity: Int
    package let unitPrice: String
    package let lineTotal: String

    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("lineTotal", lineTotal)
            $0.field("quantity", quantity)
            $0.field("title", title)
            $0.field("unitPrice", unitPrice)
        }
    }
}

/// A status change the order allows now, as a button would offer it.
package struct OrderActionViewModel: JSONWritable, Equatable, Sendable {
    package let name: String
    package let label: String
    package let method: String
    package let href: String
    package let body: [String: String]

    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("body", body)
            $0.field("href", href)
            $0.field("label", label)
            $0.field("method", method)
            $0.field("name", name)
        }
    }
}
