import Foundation
import TailorApp
import TailorHTTP
import TailorTestSupport
import Testing

/// Orders: validation, lists, details, transitions, deletion, isolation.
@Suite struct OrderAPITests {
    static let groceries = #"{"name":" Groceries ","currency":"USD","items":[{"title":"Milk","quantity":2,"priceCents":129}]}"#

    @Test(arguments: Backend.allCases)
    func placingAnOrderAnswersItsViewModel(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        let response = try alice.send("POST", "/api/orders", json: Self.groceries)
        #expect(response.status == 201)
        let order = response.json
        let id = try #require(order["id"] as? String)
        #expect(order["name"] as? String == "Groceries #\(id)")
        #expect(order["status"] as? String == "placed")
        #expect(order["total"] as? String == "$2.58")
        #expect(order["totalCents"] as? Int == 258)
        #expect(order["itemCount"] as? Int == 2)
        #expect((order["actions"] as? [[String: Any]])?.map { $0["name"] as! String } == ["pay", "cancel"])
        let lines = try #require(order["lines"] as? [[String: Any]])
        #expect(lines.first?["unitPrice"] as? String == "$1.29")
        #expect(lines.first?["lineTotal"] as? String == "$2.58")
        #expect(try alice.get("/api/orders/\(id)").json["name"] as? String == "Groceries #\(id)")
    }

    @Test(arguments: [
        #"{"name":"","items":[{"title":"a","quantity":1,"priceCents":1}]}"#,
        #"{"name":"x","items":[]}"#,
        #"{"name":"x","currency":"BTC","items":[{"title":"a","quantity":1,"priceCents":1}]}"#,
        #"{"name":"x","items":[{"title":"a","quantity":0,"priceCents":1}]}"#,
        #"{"name":"x","items":[{"title":"a","quantity":1001,"priceCents":1}]}"#,
        #"{"name":"x","items":[{"title":"a","quantity":1.5,"priceCents":1}]}"#,
        #"{"name":"x","items":[{"title":"a","quantity":true,"priceCents":1}]}"#,
        #"{"name":"x","items":[{"title":"a","quantity":1,"priceCents":10000001}]}"#,
        #"{"name":"x","items":[{"title":"","quantity":1,"priceCents":1}]}"#,
        #"{"name":"x","items":"none"}"#,
        #"{"items":[{"title":"a","quantity":1,"priceCents":1}]}"#,
    ])
    func invalidOrdersAre422AndStoreNothing(body: String) throws {
        let app = try TestApp()
        let alice = try app.user("alice")
        let response = try alice.send("POST", "/api/orders", json: body)
        #expect(response.status == 422, "\(body)")
        #expect(response.errorCode == "invalid_fields")
        #expect(try alice.get("/api/orders").json["count"] as? Int == 0)
    }

    /// A page draws its controls from the list's choices: each one offered
    /// is accepted, and a price typed in a currency's unit times its minor
    /// units is what the order shows.
    @Test func aListOffersTheChoicesThePageDraws() throws {
        let app = try TestApp()
        let alice = try app.user("alice")
        let choices = try #require(try alice.get("/api/orders").json["choices"] as? [String: Any])
        func values(_ name: String) -> [String] {
            (choices[name] as? [[String: Any]])?.compactMap { $0["value"] as? String } ?? []
        }
        #expect(values("sort") == ["newest", "oldest", "total"])
        #expect(values("layout") == ["list", "compact"])
        #expect(values("status") == ["", "placed", "paid", "shipped", "delivered", "cancelled"])
        #expect((choices["status"] as? [[String: Any]])?.first?["label"] as? String == "Any")
        for (name, value) in ["sort", "layout", "status"].flatMap({ name in values(name).map { (name, $0) } }) {
            #expect(try alice.get("/api/orders?\(name)=\(value)").status == 200, "\(name)=\(value)")
        }
        let currencies = try #require(choices["currencies"] as? [[String: Any]])
        #expect(currencies.map { $0["code"] as? String } == ["USD", "EUR", "GBP", "JPY"])
        for currency in currencies {
            let code = try #require(currency["code"] as? String)
            let minorUnits = try #require(currency["minorUnits"] as? Int)
            let order = try alice.send("POST", "/api/orders",
                                       json: #"{"name":"One","currency":"\#(code)","items":[{"title":"Unit","quantity":1,"priceCents":\#(3 * minorUnits)}]}"#).json
            #expect((order["total"] as? String)?.dropFirst().hasPrefix("3") == true, "\(code): \(order["total"] ?? "")")
            #expect((order["total"] as? String)?.hasSuffix(minorUnits == 1 ? "3" : "3.00") == true, "\(code): \(order["total"] ?? "")")
        }
    }

    /// Search ignores case in every script, on both engines, and finds an
    /// accented letter however it was typed; orders stored before the search
    /// keys get theirs when the server starts.
    @Test(arguments: Backend.allCases)
    func searchIgnoresCaseBeyondASCII(_ backend: Backend) throws {
        let location = try TestDatabase.fresh(backend)
        var ids: [String: String] = [:]
        let token: String
        do {
            let app = try TestApp(backend: backend, database: location)
            let alice = try app.user("alice")
            token = try #require(alice.token)
            for (name, title) in [("Äpfel und Öl", "Obst"), ("ÉCLAIR", "Pâtisserie"), ("Tools", "Straße map"), ("Ωmega", "ΣΟΦΙΑ")] {
                ids[name] = try #require(try alice.send("POST", "/api/orders", json: #"{"name":"\#(name)","items":[{"title":"\#(title)","quantity":1,"priceCents":1}]}"#).json["id"] as? String)
            }
        }
        // As a database from before search keys: the keys forgotten, made again at the next start.
        let store = try TestDatabase.connection(to: location)
        _ = try store.run("UPDATE orders SET search_key = NULL")
        let app = try TestApp(backend: backend, database: location)
        let alice = try app.client()
        alice.token = token
        func found(_ query: String) throws -> [String] {
            (try alice.get("/api/orders?q=\(query)").json["items"] as? [[String: Any]])?.map { $0["id"] as! String } ?? []
        }
        #expect(try found("%C3%A4pfel") == [ids["Äpfel und Öl"]!], "äpfel")
        #expect(try found("%C3%96L") == [ids["Äpfel und Öl"]!], "ÖL")
        #expect(try found("%C3%A9clair") == [ids["ÉCLAIR"]!], "éclair")
        #expect(try found("e%CC%81clair") == [ids["ÉCLAIR"]!], "e and an accent, clair")
        #expect(try found("P%C3%82TISSERIE") == [ids["ÉCLAIR"]!], "PÂTISSERIE")
        #expect(try found("STRASSE") == [ids["Tools"]!])
        #expect(try found("%CF%83%CE%BF%CF%86%CE%B9%CE%B1") == [ids["Ωmega"]!], "σοφια")
        #expect(try found("%CF%89mega") == [ids["Ωmega"]!], "ωmega")
    }

    @Test(arguments: Backend.allCases)
    func listsSortFilterSearchAndLayout(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        func place(_ name: String, _ title: String, _ cents: Int, _ currency: String = "USD") throws -> String {
            try #require(try alice.send("POST", "/api/orders", json: #"{"name":"\#(name)","currency":"\#(currency)","items":[{"title":"\#(title)","quantity":1,"priceCents":\#(cents)}]}"#).json["id"] as? String)
        }
        let tea = try place("Groceries", "Green Tea", 350)
        let spade = try place("Garden", "Spade", 123_450)
        let novel = try place("Books", "Novel", 1999, "JPY")
        func ids(_ query: String) throws -> [String] {
            (try alice.get("/api/orders\(query)").json["items"] as? [[String: Any]])?.map { $0["id"] as! String } ?? []
        }
        #expect(try ids("") == [novel, spade, tea])
        #expect(try ids("?sort=oldest") == [tea, spade, novel])
        #expect(try ids("?sort=total") == [spade, novel, tea])
        #expect(try ids("?q=TEA") == [tea])
        #expect(try ids("?q=garden") == [spade])
        #expect(try alice.get("/api/orders?q=green+tea").json["count"] as? Int == 1)
        let compact = try alice.get("/api/orders?layout=compact").json
        #expect((compact["items"] as? [[String: Any]])?.first.map { Set($0.keys) } == ["id", "name", "statusLabel", "total", "open"])
        #expect(((compact["items"] as? [[String: Any]])?.dropFirst().first?["total"]) as? String == "$1,234.50")
        try alice.send("PATCH", "/api/orders/\(spade)", json: #"{"status":"paid"}"#)
        #expect(try ids("?status=paid") == [spade])
        for bad in ["?sort=bogus", "?layout=grid", "?status=lost"] {
            let response = try alice.get("/api/orders\(bad)")
            #expect(response.status == 422, "\(bad)")
        }
    }

    @Test(arguments: Backend.allCases)
    func statusesMoveOnlyAlongTheRules(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        let id = try #require(try alice.send("POST", "/api/orders", json: Self.groceries).json["id"] as? String)
        let early = try alice.send("PATCH", "/api/orders/\(id)", json: #"{"status":"shipped"}"#)
        #expect(early.status == 409)
        #expect(early.errorCode == "invalid_transition")
        let paid = try alice.send("PATCH", "/api/orders/\(id)", json: #"{"status":"paid"}"#)
        #expect(paid.status == 200)
        #expect((paid.json["actions"] as? [[String: Any]])?.map { $0["name"] as! String } == ["ship", "cancel"])
        #expect(try alice.send("PATCH", "/api/orders/\(id)", json: #"{"status":"shipped"}"#).status == 200)
        #expect(try alice.send("PATCH", "/api/orders/\(id)", json: #"{"status":"cancelled"}"#).status == 409)
        let delivered = try alice.send("PATCH", "/api/orders/\(id)", json: #"{"status":"delivered"}"#)
        #expect((delivered.json["actions"] as? [Any])?.isEmpty == true)
        #expect(try alice.send("PATCH", "/api/orders/\(id)", json: #"{"status":"sold"}"#).status == 422)
    }

    @Test(arguments: Backend.allCases)
    func deletingAnOrderRemovesIt(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        let id = try #require(try alice.send("POST", "/api/orders", json: Self.groceries).json["id"] as? String)
        #expect(try alice.get("/api/orders").json["count"] as? Int == 1)
        #expect(try alice.send("DELETE", "/api/orders/\(id)").status == 204)
        #expect(try alice.get("/api/orders/\(id)").status == 404)
        #expect(try alice.get("/api/orders").json["count"] as? Int == 0)
        #expect(try alice.send("DELETE", "/api/orders/\(id)").status == 404)
    }

    @Test(arguments: Backend.allCases)
    func anotherUsersOrderIsNotFoundOnEveryRoute(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        let mallory = try app.user("mallory")
        let id = try #require(try alice.send("POST", "/api/orders", json: Self.groceries).json["id"] as? String)
        #expect(try mallory.get("/api/orders/\(id)").status == 404)
        #expect(try mallory.send("PATCH", "/api/orders/\(id)", json: #"{"status":"paid"}"#).status == 404)
        #expect(try mallory.send("DELETE", "/api/orders/\(id)").status == 404)
        #expect(try mallory.get("/api/orders").json["count"] as? Int == 0)
        #expect(try alice.get("/api/orders/\(id)").json["status"] as? String == "placed")
    }

    @Test(arguments: Backend.allCases)
    func largeListsAreGzippedWhenAccepted(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        for _ in 0..<10 { try alice.send("POST", "/api/orders", json: Self.groceries) }
        let plain = try alice.get("/api/orders")
        let zipped = try alice.get("/api/orders", headers: ["Accept-Encoding: gzip"])
        #expect(zipped.header("content-encoding") == "gzip")
        #expect(Gzip.decompress(zipped.body) == plain.body)
        #expect(zipped.header("etag") != plain.header("etag"))
        #expect(try alice.get("/api/orders", headers: ["Accept-Encoding: gzip", "If-None-Match: \(zipped.header("etag")!)"]).status == 304)
        let head = try alice.send("HEAD", "/api/orders")
        #expect(head.status == 200)
        #expect(head.header("content-length") == String(plain.body.count))
    }

    /// A list holds a page; `next` leads through the rest with the same choices.
    @Test(arguments: Backend.allCases)
    func theListComesInPagesThatFollowNext(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        for index in 1...5 {
            #expect(try alice.send("POST", "/api/orders", json: #"{"name":"Café \#(index)","items":[{"title":"t","quantity":1,"priceCents":\#(index)}]}"#).status == 201)
        }
        var href: String? = "/api/orders?sort=total&q=caf%C3%A9&limit=2"
        var names: [String] = []
        while let next = href {
            let page = try alice.get(next).json
            let items = try #require(page["items"] as? [[String: Any]])
            #expect(page["count"] as? Int == items.count)
            names += items.compactMap { $0["name"] as? String }
            href = (page["next"] as? [String: Any])?["href"] as? String
        }
        #expect(names == ["Café 5 #5", "Café 4 #4", "Café 3 #3", "Café 2 #2", "Café 1 #1"])
        let whole = try alice.get("/api/orders").json
        #expect(whole["count"] as? Int == 5)
        #expect(whole["next"] is NSNull)
        for query in ["limit=0", "limit=201", "offset=-1", "offset=x"] {
            #expect(try alice.get("/api/orders?\(query)").status == 422, "\(query)")
        }
    }

    @Test func ordersPastTheLimitPerUserAre409() throws {
        let app = try TestApp { $0.quotas.ordersPerUser = 3 }
        let alice = try app.user("alice")
        for _ in 0..<3 { #expect(try alice.send("POST", "/api/orders", json: Self.groceries).status == 201) }
        let refused = try alice.send("POST", "/api/orders", json: Self.groceries)
        #expect(refused.status == 409)
        #expect(refused.errorCode == "too_many_orders")
        let bob = try app.user("bob")
        #expect(try bob.send("POST", "/api/orders", json: Self.groceries).status == 201)
    }
}
