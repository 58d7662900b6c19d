import TailorStore

/// Builds orders and order lists: `Name #id`, money per currency, status labels,
/// the date text, and the actions allowed in the current status.
package struct OrderViewModelBuilder {
    package let dates: DateText

    package init(dates: DateText) {
        self.dates = dates
    }

    package func build(_ order: Order, now: Int, withLines: Bool) -> OrderViewModel {
        let currency = Currency(rawValue: order.currency) ?? .usd
        var model = OrderViewModel(
            id: String(order.id),
            name: "\(order.name) #\(order.id)",
            status: order.status.rawValue,
            statusLabel: Self.label(order.status),
            total: currency.format(order.totalCents),
            totalCents: order.totalCents,
            currency: currency.rawValue,
            date: dates.text(order.createdAt, now: now),
            createdAt: DateText.iso(order.createdAt),
            itemCount: order.itemCount,
            open: .get("/api/orders/\(order.id)"),
            actions: order.status.allowedMoves.map { Self.action(to: $0, order: order.id) })
        if withLines {
            model.lines = order.items.map {
                OrderLineViewModel(title: $0.title, quantity: $0.quantity, unitPrice: currency.format($0.priceCents),
                                   lineTotal: currency.format($0.priceCents * $0.quantity))
            }
        }
        return model
    }

    /// The page `query` asks for, from `orders` read from its offset on; an
    /// order past the page's limit means a next page.
    package func buildList(_ orders: [Order], query: OrdersQuery, now: Int) -> OrdersViewModel {
        let items: [OrderListItemViewModel] = orders.prefix(query.limit).map { order in
            let full = build(order, now: now, withLines: false)
            switch query.layout {
            case .list: return .full(full)
            case .compact: return .compact(CompactOrderViewModel(id: full.id, name: full.name, statusLabel: full.statusLabel, total: full.total, open: full.open))
            }
        }
        let next: ActionViewModel? = orders.count > query.limit ? .get(query.href(offset: query.offset + query.limit)) : nil
        return OrdersViewModel(title: "Orders", count: items.count, sort: query.sort.rawValue, layout: query.layout.rawValue,
                               items: items, next: next)
    }

    package static func label(_ status: OrderStatus) -> String {
        switch status {
        case .placed: "Placed"
        case .paid: "Paid"
        case .shipped: "Shipped"
        case .delivered: "Delivered"
        case .cancelled: "Cancelled"
        }
    }

    package static func action(to status: OrderStatus, order: Int) -> OrderActionViewModel {
        let (name, label) = switch status {
        case .paid: ("pay", "Pay")
        case .shipped: ("ship", "Ship")
        case .delivered: ("deliver", "Mark delivered")
        case .cancelled: ("cancel", "Cancel")
        case .placed: ("place", "Place")
        }
        return OrderActionViewModel(name: name, label: label, method: "PATCH", href: "/api/orders/\(order)", body: ["status": status.rawValue])
    }
}
