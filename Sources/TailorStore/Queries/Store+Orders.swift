extension Store {
    // MARK: Writes

    public func insertOrder(user: Int, name: String, currency: String, items: [OrderItem], at now: Int) throws -> Order {
        let total = items.reduce(0) { $0 + $1.quantity * $1.priceCents }
        let pieces = items.reduce(0) { $0 + $1.quantity }
        let key = SearchKey.of(name: name, titles: items.map(\.title))
        let id = try expectRow(try connection.first("""
            INSERT INTO orders (user_id, name, currency, status, total_cents, item_count, created_at, search_key)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
            """, user, name, currency, OrderStatus.placed.rawValue, total, pieces, now, key) { $0.int(0) })
        for (position, item) in items.enumerated() {
            try connection.run("INSERT INTO order_items (order_id, position, title, quantity, price_cents) VALUES (?, ?, ?, ?, ?)",
                               id, position, item.title, item.quantity, item.priceCents)
        }
        return Order(id: id, userID: user, name: name, currency: currency, status: .placed, totalCents: total,
                     itemCount: pieces, createdAt: now, items: items)
    }

    /// Moves an order of `user` to `status` if its rules allow it. The update
    /// holds only while the status is still the one read: of two servers moving
    /// one order at once, the second is told the move it tried is no longer valid.
    public func updateOrderStatus(id: Int, user: Int, to status: OrderStatus) throws -> Order {
        guard var order = try order(id: id, user: user) else { throw StoreError.notFound }
        guard order.status.canMove(to: status) else { throw StoreError.invalidTransition(from: order.status, to: status) }
        guard try connection.run("UPDATE orders SET status = ? WHERE id = ? AND status = ?", status.rawValue, id, order.status.rawValue) == 1 else {
            let now = try self.order(id: id, user: user)
            guard let now else { throw StoreError.notFound }
            throw StoreError.invalidTransition(from: now.status, to: status)
        }
        order.status = status
        return order
    }

    public func deleteOrder(id: Int, user: Int) throws {
        guard try connection.run("DELETE FROM orders WHERE id = ? AND user_id = ?", id, user) == 1 else { throw StoreError.notFound }
    }

    // MARK: Reads

    /// An order of `user` with its lines; another user's order is nil.
    public func order(id: Int, user: Int) throws -> Order? {
        guard var order = try connection.first("""
            SELECT id, user_id, name, currency, status, total_cents, item_count, created_at FROM orders WHERE id = ? AND user_id = ?
            """, id, user, row: { try Self.order($0) }) else { return nil }
        order.items = try connection.query("SELECT title, quantity, price_cents FROM order_items WHERE order_id = ? ORDER BY position", id) {
            OrderItem(title: $0.text(0), quantity: $0.int(1), priceCents: $0.int(2))
        }
        return order
    }

    /// A page of a user's orders without lines, filtered by status and by `text`
    /// in the name or an item title (ignoring case, `SearchKey`), in `sort`
    /// order: `limit` orders after the first `offset`.
    public func orders(of user: Int, status: OrderStatus?, matching text: String, sort: OrderSort,
                       offset: Int = 0, limit: Int = Int.max) throws -> [Order] {
        let order = switch sort {
        case .newest: "id DESC"
        case .oldest: "id ASC"
        case .total: "total_cents DESC, id DESC"
        }
        return try connection.query("""
            SELECT id, user_id, name, currency, status, total_cents, item_count, created_at FROM orders
            WHERE user_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR status = ?2)
              AND (?3 = '' OR instr(search_key, ?3) > 0)
            ORDER BY \(order) LIMIT ?4 OFFSET ?5
            """, user, status?.rawValue, SearchKey.folded(text), limit, offset) { try Self.order($0) }
    }

    /// Gives every order stored before search keys its key, a thousand in a
    /// transaction: after a migration, before the server serves.
    static func keyUnkeyedOrders(on connection: any DatabaseConnection) throws {
        while try !connection.transaction({ try Store(connection).keyUnkeyedOrders() }) {}
    }

    /// Gives up to a thousand orders stored before search keys (`SearchKey`)
    /// their keys; true when none is left without one.
    func keyUnkeyedOrders() throws -> Bool {
        let batch = 1_000
        let ids = try connection.query("SELECT id, name FROM orders WHERE search_key IS NULL ORDER BY id LIMIT ?", batch) {
            ($0.int(0), $0.text(1))
        }
        for (id, name) in ids {
            let titles = try connection.query("SELECT title FROM order_items WHERE order_id = ? ORDER BY position", id) { $0.text(0) }
            try connection.run("UPDATE orders SET search_key = ? WHERE id = ?", SearchKey.of(name: name, titles: titles), id)
        }
        return ids.count < batch
    }

    /// How many orders `user` has.
    public func orderCount(of user: Int) throws -> Int {
        try connection.first("SELECT count(*) FROM orders WHERE user_id = ?", user) { $0.int(0) } ?? 0
    }

    /// An order row without its lines. A status this program does not know
    /// (written by a newer one) is an error, not taken for another.
    static func order(_ row: any DatabaseRow) throws -> Order {
        let statusText = row.text(4)
        guard let status = OrderStatus(rawValue: statusText) else { throw StoreError.unknownStatus(statusText) }
        return Order(id: row.int(0), userID: row.int(1), name: row.text(2), currency: row.text(3), status: status,
                     totalCents: row.int(5), itemCount: row.int(6), createdAt: row.int(7), items: [])
    }
}
