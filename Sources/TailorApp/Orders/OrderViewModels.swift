/// The orders screen (topic `orders`, and its sorted, filtered variants).
struct OrdersViewModel: JSONWritable, Equatable, Sendable {
    let title: String
    let count: Int
    let sort: String
    let layout: String
    let items: [OrderListItemViewModel]
    /// The page after this one, or null.
    let next: ActionViewModel?

    func write(to json: inout JSONWriter) {
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
enum OrderListItemViewModel: JSONWritable, Equatable, Sendable {
    case full(OrderViewModel)
    case compact(CompactOrderViewModel)

    func write(to json: inout JSONWriter) {
        switch self {
        case .full(let order): order.write(to: &json)
        case .compact(let order): order.write(to: &json)
        }
    }
}

struct CompactOrderViewModel: JSONWritable, Equatable, Sendable {
    let id: String
    let name: String
    let statusLabel: String
    let total: String
    let open: ActionViewModel

    func write(to json: inout JSONWriter) {
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
struct OrderViewModel: JSONWritable, Equatable, Sendable {
    let id: String
    let name: String
    let status: String
    let statusLabel: String
    let total: String
    let totalCents: Int
    let currency: String
    let date: String
    let createdAt: String
    let itemCount: Int
    let open: ActionViewModel
    let actions: [OrderActionViewModel]
    var lines: [OrderLineViewModel]?

    func write(to json: inout JSONWriter) {
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

struct OrderLineViewModel: JSONWritable, Equatable, Sendable {
    let title: String
    let quantity: Int
    let unitPrice: String
    let lineTotal: String

    func write(to json: inout JSONWriter) {
        json.object {
            $0.field("lineTotal", lineTotal)
            $0.field("quantity", quantity)
            $0.field("title", title)
            $0.field("unitPrice", unitPrice)
        }
    }
}

/// A status change the order allows now, as a button would offer it.
struct OrderActionViewModel: JSONWritable, Equatable, Sendable {
    let name: String
    let label: String
    let method: String
    let href: String
    let body: [String: String]

    func write(to json: inout JSONWriter) {
        json.object {
            $0.field("body", body)
            $0.field("href", href)
            $0.field("label", label)
            $0.field("method", method)
            $0.field("name", name)
        }
    }
}
