import Foundation
import Synchronization
import TailorHTTP
import TailorTestSupport
import Testing

/// Keep-alive, pipelining, HTTP/1.0, HEAD and many clients, over real sockets.
@Suite struct ConnectionTests {
    @Test func healthzAnswersWithServerAndDateFields() throws {
        let server = try TestServer()
        let response = try server.get("/healthz")
        #expect(response.status == 200)
        #expect(response.text == #"{"status":"ok"}"#)
        #expect(response.header("server") == "Tailor")
        #expect(response.header("date")?.hasSuffix(" GMT") == true)
        #expect(response.header("content-type") == "application/json; charset=utf-8")
    }

    @Test func keepAliveServesAHundredRequestsOnOneConnection() throws {
        let server = try TestServer()
        let client = try server.client()
        for _ in 0..<100 {
            try client.send("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.header("connection") == nil)
        }
        #expect(server.server.connectionCount == 1)
    }

    @Test func tenPipelinedRequestsInOneWriteAreAnsweredInOrder() throws {
        let server = try TestServer()
        let client = try server.client()
        var requests = ""
        for index in 0..<10 {
            let body = "request \(index)"
            requests += "POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        try client.send(requests)
        for index in 0..<10 {
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "request \(index)")
        }
    }

    /// The task that served a connection serves the loop's next one with the
    /// same buffers: nothing the first left behind (a head cut short, a body
    /// cut short, a request sent after `Connection: close`) reaches the second.
    @Test func nothingOfAnEndedConnectionReachesTheNext() throws {
        let server = try TestServer { $0.loopCount = 1 }
        let leftovers = [
            "GET /healthz HTTP/1.1\r\nHost: test\r\nX-Cut: ",
            "POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\nonly a part",
            "GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\nPOST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\nstale",
        ]
        for leftover in leftovers {
            do {
                let first = try server.client()
                try first.send(leftover)
                if leftover.contains("close") { #expect(try first.readResponse().status == 200) }
            }
            #expect(server.waitForConnectionCount(0), "the first connection did not end: \(leftover)")
            let second = try server.client()
            try second.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\nfresh")
            let response = try second.readResponse()
            #expect(response.status == 200 && response.text == "fresh", "after \(leftover)")
            #expect(server.waitForConnectionCount(1))
        }
    }

    @Test func connectionCloseIsHonoured() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.send("GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.header("connection") == "close")
        #expect(client.isClosedByServer())
    }

    @Test func http10ClosesUnlessAskedToKeepAlive() throws {
        let server = try TestServer()
        let closing = try server.client()
        try closing.send("GET /healthz HTTP/1.0\r\n\r\n")
        let first = try closing.readResponse()
        #expect(first.status == 200)
        #expect(first.header("connection") == "close")
        #expect(closing.isClosedByServer())

        let keeping = try server.client()
        for _ in 0..<3 {
            try keeping.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let response = try keeping.readResponse()
            #expect(response.status == 200)
            #expect(response.header("connection") == "keep-alive")
        }
    }

    @Test func headHasTheLengthOfGetButNoBody() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.send("HEAD /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        let head = try client.readResponse(bodyless: true)
        #expect(head.status == 200)
        #expect(head.header("content-length") == "15")
        // The next response on the connection starts right after the head.
        try client.send("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readResponse().text == #"{"status":"ok"}"#)
    }

    @Test func twoHundredConcurrentClientsAreAllAnswered() throws {
        let server = try TestServer()
        let clients = try (0..<200).map { _ in try server.client() }
        #expect(server.waitForConnectionCount(200))
        for client in clients {
            try client.send("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        }
        for client in clients {
            #expect(try client.readResponse().status == 200)
        }
    }

    @Test func stalledHalfRequestsDoNotDelayOthers() throws {
        let server = try TestServer()
        let stalled = try (0..<50).map { _ in try server.client() }
        for client in stalled {
            try client.send("GET /healthz HTTP/1.1\r\nHost: te")
        }
        #expect(server.waitForConnectionCount(50))
        // Each answer must come within the client's read timeout, while the
        // stalled ones never complete.
        for _ in 0..<10 {
            let client = try server.client(timeout: 10)
            try client.send("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
        // And the stalled ones still complete when their bytes arrive.
        try stalled[0].send("st\r\n\r\n")
        #expect(try stalled[0].readResponse().status == 200)
    }

    @Test func abruptDisconnectsLeaveTheServerHealthy() throws {
        let server = try TestServer()
        for index in 0..<50 {
            let client = try server.client()
            switch index % 3 {
            case 0: try client.send("GET /healthz HTTP/1.1\r\nHost: te")
            case 1: try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\nhalf")
            default: try client.send("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
            }
            client.reset()
        }
        #expect(server.waitForConnectionCount(0))
        #expect(try server.get("/healthz").status == 200)
    }

    @Test func connectionsPastTheLimitGet503() throws {
        let server = try TestServer { $0.maxConnections = 3 }
        let held = try (0..<3).map { _ in try server.client() }
        #expect(server.waitForConnectionCount(3))
        let refused = try server.client()
        let response = try refused.readResponse()
        #expect(response.status == 503)
        #expect(response.errorCode == "overloaded")
        #expect(refused.isClosedByServer())
        // The held ones still work, and a place freed is usable again.
        try held[0].send("GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        #expect(try held[0].readResponse().status == 200)
        #expect(server.waitForConnectionCount(2))
        #expect(try server.get("/healthz").status == 200)
    }

    @Test func idleConnectionsAreClosedAfterTheIdleTimeout() throws {
        let server = try TestServer { $0.idleTimeout = 0.5 }
        let client = try server.client()
        try client.send("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        #expect(client.isClosedByServer())
        #expect(server.waitForConnectionCount(0))
    }

    @Test func aHeadThatDoesNotArriveInTimeGets408() throws {
        let server = try TestServer { $0.headerTimeout = 0.5 }
        let client = try server.client()
        try client.send("GET /healthz HTTP/1.1\r\n")
        let response = try client.readResponse()
        #expect(response.status == 408)
        #expect(client.isClosedByServer())
    }

    @Test func asyncHandlersMaySuspend() throws {
        let server = try TestServer { _ in } routes: { router in
            router.get("/slow") { _ in
                // Work that takes a while: the next request waits behind it, in order.
                try await Task.sleep(for: .milliseconds(50))
                return .json(#"{"slow":true}"#)
            }
        }
        let client = try server.client()
        try client.send("GET /slow HTTP/1.1\r\nHost: test\r\n\r\nGET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readResponse().text == #"{"slow":true}"#)
        #expect(try client.readResponse().text == #"{"status":"ok"}"#)
    }

    /// A connection that never sends a byte is closed after the head timeout
    /// counted from its accept, not kept for the idle timeout: ten thousand
    /// silent ones would otherwise hold every place for a minute.
    @Test func aSilentConnectionIsClosedAfterTheHeadTimeout() throws {
        let server = try TestServer {
            $0.headerTimeout = 0.5
            $0.idleTimeout = 60
        }
        let client = try server.client(timeout: 15)
        #expect(client.isClosedByServer())
        #expect(server.waitForConnectionCount(0))
    }

    /// Each piece of a dribbled body arrives within the head timeout, but the
    /// whole body must arrive within the body timeout.
    @Test func aDribbledBodyGets408AtItsDeadline() throws {
        let server = try TestServer {
            $0.headerTimeout = 1
            $0.bodyTimeout = 1
        }
        let client = try server.client(timeout: 5)
        try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\n")
        let started = Date()
        var answer: TestResponse?
        for _ in 0..<20 {
            // The client dribbles: a byte every 0.3 s, within the head timeout
            // each time, until the server's answer comes.
            var answering = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
            if poll(&answering, 1, 300) > 0 { break }
            guard (try? client.send("x")) != nil else { break }
            if Date().timeIntervalSince(started) > 2.5 { break }
        }
        answer = try? client.readResponse()
        #expect(answer?.status == 408)
        #expect(Date().timeIntervalSince(started) < 4)
    }

    @Test func connectionsPastTheLimitPerAddressGet503() throws {
        let server = try TestServer { $0.maxConnectionsPerAddress = 3 }
        let held = try (0..<3).map { _ in try server.client() }
        #expect(server.waitForConnectionCount(3))
        let refused = try server.client()
        #expect(try refused.readResponse().status == 503)
        #expect(refused.isClosedByServer())
        try held[0].send("GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        #expect(try held[0].readResponse().status == 200)
        #expect(server.waitForConnectionCount(2))
        #expect(try server.get("/healthz").status == 200)
    }

    /// A request whose client hangs up while it is answered says so to its
    /// handler (costly work for it, a password's hash, is then dropped); one
    /// whose client waits does not.
    @Test func aHandlerLearnsThatItsClientHungUp() throws {
        let seen = Mutex<[String: Bool]>([:])
        let arrived = Mutex<Set<String>>([])
        let server = try TestServer(routes: { router in
            router.get("/slow/{name}") { request in
                arrived.withLock { _ = $0.insert(request.parameters.first?.value ?? "") }
                // Work that takes a while, long enough for its client to hang up meanwhile.
                try await Task.sleep(for: .milliseconds(300))
                seen.withLock { $0[request.parameters.first?.value ?? ""] = request.presence?.hasLeft }
                return .json(#"{"status":"ok"}"#)
            }
        })
        let leaving = try server.client()
        try leaving.send("GET /slow/leaving HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(eventually { arrived.withLock { $0.contains("leaving") } })
        leaving.reset()
        let staying = try server.client()
        try staying.send("GET /slow/staying HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try staying.readResponse().status == 200)
        #expect(eventually { seen.withLock { $0.count } == 2 })
        #expect(seen.withLock { $0 } == ["leaving": true, "staying": false])
    }
}
