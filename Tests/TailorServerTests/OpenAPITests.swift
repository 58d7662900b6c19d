import Foundation
import Testing

/// `GET /api/openapi.json` documents every route and method the server has,
/// and nothing else (scripts/api-check validates the document and runs
/// schemathesis against it).
@Suite struct OpenAPITests {
    /// What an operation of the document may hold beside its methods.
    static let notMethods: Set<String> = ["parameters", "summary", "description", "servers"]

    @Test func everyRouteIsInTheDocument() throws {
        let app = try TestApp()
        let response = try app.client().get("/api/openapi.json")
        #expect(response.status == 200)
        #expect(response.header("content-type")?.hasPrefix("application/json") == true)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        #expect(!app.application.routeTable.isEmpty)
        var served: Set<String> = []
        for (pattern, methods) in app.application.routeTable {
            for method in methods {
                let operation = "\(method.description.lowercased()) \(pattern)"
                served.insert(operation)
                #expect(paths[pattern]?[method.description.lowercased()] != nil, "\(operation) is not documented")
            }
        }
        let documented = paths.flatMap { path, item in item.keys.filter { !Self.notMethods.contains($0) }.map { "\($0) \(path)" } }
        #expect(Set(documented).subtracting(served).isEmpty, "documented but not served")
    }
}
