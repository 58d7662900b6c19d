import TailorHTTP
import TailorStore
import TailorViews

/// Orders: create, list with sort, layout, search and status, details, status
/// changes, delete.
struct OrderRoutes {
    let context: AppContext

    static let nameLimit = TextLimit(characters: 1...100, bytes: 400)
    static let titleLimit = TextLimit(characters: 1...200, bytes: 800)
    static let searchLimit = TextLimit(characters: 0...100, bytes: 400)

    func register(on router: inout Router) {
        router.post("/api/orders") { request in try await place(request) }
        router.get("/api/orders") { request in
            let user = try await context.auth.user(for: request)
            return try await context.respond(request, user: user, topic: .orders(try Self.query(request)), missing: "orders list")
        }
        router.get("/api/orders/{id}") { request in
            let user = try await context.auth.user(for: request)
            return try await context.respond(request, user: user, topic: .order(id: try AppContext.id(request, missing: "order")), missing: "order")
        }
        router.patch("/api/orders/{id}") { request in try await changeStatus(request) }
        router.delete("/api/orders/{id}") { request in
            let user = try await context.auth.user(for: request)
            let id = try AppContext.id(request, missing: "order")
            try await ofOrder { try await context.events.deleteOrder(user: user.id, order: id) }
            return HTTPResponse(status: .noContent)
        }
    }

    /// `sort`, `layout`, `q`, `status`, `offset` and `limit`; an unknown value is 422.
    static func query(_ request: HTTPRequest) throws -> OrdersQuery {
        var query = OrdersQuery.standard
        if let sort = request.query("sort") {
            guard let value = OrderSort(rawValue: sort) else { throw APIError.invalidQuery("sort must be newest, oldest or total.") }
            query.sort = value
        }
        if let layout = request.query("layout") {
            guard let value = OrdersQuery.Layout(rawValue: layout) else { throw APIError.invalidQuery("layout must be list or compact.") }
            query.layout = value
        }
        if let status = request.query("status"), !status.isEmpty {
            guard let value = OrderStatus(rawValue: status) else {
                throw APIError.invalidQuery("status must be one of \(OrderStatus.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            query.status = value
        }
        if let text = request.query("q") {
            guard Self.searchLimit.admits(text) else { throw APIError.invalidQuery("q must be \(Self.searchLimit.description).") }
            query.text = text.trimmed
        }
        let page = try PageParameters(request, defaultLimit: OrdersQuery.pageSize, maxLimit: OrdersQuery.maxPageSize)
        query.offset = page.offset
        query.limit = page.limit
        return query
    }

    private func place(_ request: HTTPRequest) async throws -> HTTPResponse {
        let user = try await context.auth.user(for: request)
        let body = try JSONBody(request)
        let name = try body.text("name", within: Self.nameLimit)
        let currencyCode = try body.optionalString("currency") ?? Currency.usd.rawValue
        guard let currency = Currency(rawValue: currencyCode) else {
            throw APIError.invalid("\"currency\" must be one of \(Currency.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        let itemValues = try body.array("items")
        guard (1...100).contains(itemValues.count) else { throw APIError.invalid("\"items\" must hold 1 to 100 items.") }
        let items = try itemValues.enumerated().map { index, value -> OrderItem in
            guard case .object(let fields) = value else { throw APIError.invalid("items[\(index)] must be an object.") }
            let item = JSONBody(fields: fields)
            let title = try item.text("title", within: Self.titleLimit, label: "items[\(index)].title")
            return OrderItem(title: title, quantity: try item.integer("quantity", in: 1...1000),
                             priceCents: try item.integer("priceCents", in: 0...10_000_000))
        }
        let order = try await ofOrder { try await context.events.placeOrder(user: user.id, name: name, currency: currency.rawValue, items: items) }
        let model = OrderViewModelBuilder(dates: context.views.dates).build(order, now: context.views.now(), withLines: true)
        return ViewModelEncoding.response(model, status: .created)
    }

    private func changeStatus(_ request: HTTPRequest) async throws -> HTTPResponse {
        let user = try await context.auth.user(for: request)
        let id = try AppContext.id(request, missing: "order")
        let statusText = try JSONBody(request).string("status")
        guard let status = OrderStatus(rawValue: statusText) else {
            throw APIError.invalid("\"status\" must be one of \(OrderStatus.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        let order = try await ofOrder { try await context.events.changeOrder(user: user.id, order: id, to: status) }
        let model = OrderViewModelBuilder(dates: context.views.dates).build(order, now: context.views.now(), withLines: true)
        return ViewModelEncoding.response(model)
    }

    /// Runs a change of orders, the store's refusals said in the API's words.
    private func ofOrder<Answer>(_ change: () async throws -> Answer) async throws -> Answer {
        do {
            return try await change()
        } catch StoreError.notFound {
            throw APIError.notFound("order")
        } catch StoreError.invalidTransition(let from, let to) {
            throw APIError.conflict("invalid_transition", "An order that is \(from.rawValue) cannot become \(to.rawValue).")
        } catch StoreError.tooManyOrders {
            throw APIError.conflict("too_many_orders", "You have as many orders as one account may have; delete some first.")
        }
    }
}
