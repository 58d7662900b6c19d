/// The orders screen (topic `orders`, and its sorted, filtered variants).
struct OrdersViewModel: Encodable, Equatable, Sendable {
    let title: String
    let count: Int
    let sort: String
    let layout: String
    let items: [OrderListItemViewModel]
}

/// One order in the list: every field in the `list` layout, the short form in `compact`.
enum OrderListItemViewModel: Encodable, Equatable, Sendable {
    case full(OrderViewModel)
    case compact(CompactOrderViewModel)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .full(let order): try order.encode(to: encoder)
        case .compact(let order): try order.encode(to: encoder)
        }
    }
}

struct CompactOrderViewModel: Encodable, Equatable, Sendable {
    let id: String
    let name: String
    let statusLabel: String
    let total: String
    let open: ActionViewModel
}

/// An order (topic `order:ID`); in lists without `lines`.
struct OrderViewModel: Encodable, Equatable, Sendable {
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
}

struct OrderLineViewModel: Encodable, Equatable, Sendable {
    let title: String
    let quantity: Int
    let unitPrice: String
    let lineTotal: String
}

/// A status change the order allows now, as a button would offer it.
struct OrderActionViewModel: Encodable, Equatable, Sendable {
    let name: String
    let label: String
    let method: String
    let href: String
    let body: [String: String]
}
