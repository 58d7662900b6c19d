/// An order and its lines. Money is in the currency's minor unit.
public struct Order: Sendable, Equatable {
    public let id: Int
    public let userID: Int
    public let name: String
    public let currency: String
    /// Set by the store as it moves the order.
    public internal(set) var status: OrderStatus
    public let totalCents: Int
    /// Pieces: the sum of the lines' quantities.
    public let itemCount: Int
    public let createdAt: Int
    /// Empty when read for a list, where lines are not needed.
    public internal(set) var items: [OrderItem]

    public init(id: Int, userID: Int, name: String, currency: String, status: OrderStatus,
                totalCents: Int, itemCount: Int, createdAt: Int, items: [OrderItem]) {
        self.id = id
        self.userID = userID
        self.name = name
        self.currency = currency
        self.status = status
        self.totalCents = totalCents
        self.itemCount = itemCount
        self.createdAt = createdAt
        self.items = items
    }
}

public struct OrderItem: Sendable, Equatable {
    public let title: String
    public let quantity: Int
    public let priceCents: Int

    public init(title: String, quantity: Int, priceCents: Int) {
        self.title = title
        self.quantity = quantity
        self.priceCents = priceCents
    }
}

/// Where an order is in its life: placed → paid → shipped → delivered, and
/// placed or paid → cancelled.
public enum OrderStatus: String, Sendable, CaseIterable {
    case placed, paid, shipped, delivered, cancelled

    /// The statuses this one may move to, in the order actions are offered.
    public var allowedMoves: [OrderStatus] {
        switch self {
        case .placed: [.paid, .cancelled]
        case .paid: [.shipped, .cancelled]
        case .shipped: [.delivered]
        case .delivered, .cancelled: []
        }
    }

    public func canMove(to next: OrderStatus) -> Bool { allowedMoves.contains(next) }
}

/// How an orders list is ordered.
public enum OrderSort: String, Sendable, CaseIterable {
    /// Highest id first.
    case newest
    /// Lowest id first.
    case oldest
    /// Highest total first; ties by id, highest first.
    case total
}
