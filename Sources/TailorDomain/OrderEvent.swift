import TailorStore

/// What a user asks of their orders: `Event.order`.
public enum OrderEvent: Sendable {
    case place(user: Int, name: String, currency: String, items: [OrderItem])
    case changeStatus(user: Int, order: Int, to: OrderStatus)
    case delete(user: Int, order: Int)
}
