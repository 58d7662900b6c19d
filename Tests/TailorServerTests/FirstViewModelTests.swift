import Foundation
import Synchronization
import TailorTestSupport
import Testing

/// A stream that opens while changes of its topics commit gets each topic's
/// first view model once: a change the first view model already shows,
/// published after it was built, is not sent again.
@Suite struct FirstViewModelTests {
    /// Streams opened one after another while messages of their chat are
    /// sent, on one server, and on the second of two while the first takes
    /// the messages. Every event a stream gets brings something its topic did
    /// not show before.
    @Test(arguments: [false, true]) func aStreamOpenedWhileItsTopicsChangeGetsNoViewModelTwice(onTwoServers: Bool) throws {
        let location = try TestDatabase.fresh(onTwoServers ? .postgres : .sqlite)
        let sending = try TestApp(database: location)
        let streaming = onTwoServers ? try TestApp(database: location) : sending
        let alice = try sending.user("alice")
        let bob = try streaming.user("bob")
        let chatID = try MultiInstanceTests.chat(between: alice, and: "bob")
        let sent = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let sender = Thread { [alice] in
            while !stop.load(ordering: .relaxed) {
                let number = sent.load(ordering: .relaxed) + 1
                guard (try? alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"m\#(number)"}"#))?.status == 201 else { break }
                sent.store(number, ordering: .relaxed)
            }
        }
        sender.start()
        defer { stop.store(true, ordering: .relaxed) }
        for _ in 0..<30 {
            let openedAfter = sent.load(ordering: .relaxed)
            let stream = try SSEClient(port: streaming.port, token: bob.token, topics: "chat:\(chatID),chats")
            var lastData: [String: String] = [:]
            var seen = Set<String>()
            // Until the chat shows a message sent after the stream opened, and a few more.
            while true {
                let event = try stream.next()
                let repeated = lastData[event.name] == event.data
                #expect(!repeated, "\(event.name) sent again with the same view model, id \(event.id ?? "none")")
                #expect(seen.insert("\(event.name) \(event.id ?? "")").inserted, "\(event.name) sent twice with id \(event.id ?? "none")")
                lastData[event.name] = event.data
                guard event.name == "chat", let text = ((event.json["messages"] as? [[String: Any]])?.last?["text"]) as? String,
                      let number = Int(text.dropFirst()) else { continue }
                if number > openedAfter + 2 { break }
            }
        }
        stop.store(true, ordering: .relaxed)
        #expect(sent.load(ordering: .relaxed) > 30)
    }
}
