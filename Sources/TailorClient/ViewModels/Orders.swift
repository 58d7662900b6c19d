/// A page of orders (topic `orders` for the default view), with what a page
/// draws its controls from.
public struct OrderList: Codable, Sendable, Equatable {
    public let title: String
    public let count: Int
    public let sort: String
    public let layout: String
    public let items: [OrderItem]
    /// The page after this one, or nil.
    public let next: Action?
    public let choices: OrderChoices

    /// What to ask for: nil leaves the server's default.
    public struct Query: Sendable, Equatable {
        public var sort: String?
        public var layout: String?
        public var query: String?
        public var status: String?

        public init(sort: String? = nil, layout: String? = nil, query: String? = nil, status: String? = nil) {
            self.sort = sort
            self.layout = layout
            self.query = query
            self.status = status
        }
    }
}

/// An order in a list; the compact layout sends only `id`, `name`, `statusLabel`, `total` and `open`.
public struct OrderItem: Codable, Sendable, Equatable, Identifiable {
    public let id: String
    public let name: String
    public let status: String?
    public let statusLabel: String
    public let total: String
    public let totalCents: Int?
    public let currency: String?
    public let date: String?
    public let createdAt: String?
    public let itemCount: Int?
    public let open: Action
    public let actions: [NamedAction]?
}

/// One order's details (topic `order:ID`).
public struct OrderDetails: Codable, Sendable, Equatable, Identifiable {
    public let id: String
    public let name: String
    public let status: String
    public let statusLabel: String
    public let total: String
    public let totalCents: Int
    public let currency: String
    public let date: String
    public let createdAt: String
    public let itemCount: Int
    public let lines: [OrderLine]
    public let open: Action
    /// Exactly the moves allowed now.
    public let actions: [NamedAction]
}

public struct OrderLine: Codable, Sendable, Equatable {
    public let title: String
    public let quantity: Int
    public let unitPrice: String
    public let lineTotal: String
}

public struct OrderChoices: Codable, Sendable, Equatable {
    public let sort: [Choice]
    public let layout: [Choice]
    public let status: [Choice]
    public let currencies: [Currency]
}

public struct Choice: Codable, Sendable, Equatable {
    public let value: String
    public let label: String
}

public struct Currency: Codable, Sendable, Equatable {
    public let code: String
    /// Minor units in one unit: 100 for USD, 1 for JPY.
    public let minorUnits: Int
}
