import Foundation
import Testing

/// `GET /api/openapi.json` documents every route the server has (scripts/api-check
/// validates the document and runs schemathesis against it).
@Suite struct OpenAPITests {
    @Test func everyRouteIsInTheDocument() throws {
        let app = try TestApp()
        let response = try app.client().get("/api/openapi.json")
        #expect(response.status == 200)
        #expect(response.header("content-type")?.hasPrefix("application/json") == true)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        #expect(!app.application.routes.isEmpty)
        for route in app.application.routes {
            #expect(paths[route] != nil, "\(route) is not documented")
        }
        #expect(Set(paths.keys).subtracting(app.application.routes).isEmpty, "documented but not served")
    }
}
