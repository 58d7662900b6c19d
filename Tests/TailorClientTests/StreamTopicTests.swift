import TailorWire
import Testing

/// The topics' names, as the server reads them and the clients write them.
@Suite struct StreamTopicTests {
    @Test(arguments: ["chats", "badge", "orders", "chat:42", "order:7", "chat:abc"])
    func aNameReadIsWrittenBackTheSame(name: String) throws {
        #expect(try #require(StreamTopic(name: name)).name == name)
    }

    @Test(arguments: ["", "chat", "chat:", "chats:5", "badge:1", "message:3", "Chats", ":4"])
    func namesOutsideTheGrammarAreNone(name: String) {
        #expect(StreamTopic(name: name) == nil)
    }

    @Test func anIdKeepsWhatFollowsItsFirstColon() throws {
        #expect(try #require(StreamTopic(name: "chat:1:2")).id == "1:2")
    }

    @Test func eventsNameTheirKindAndPatchesAddTheirSuffix() {
        let chat = StreamTopic(.chat, id: "9")
        #expect(chat.eventName == "chat")
        #expect(chat.patchEventName == "chat.patch")
        #expect(StreamTopic.isPatch(eventName: "orders.patch"))
        #expect(!StreamTopic.isPatch(eventName: "orders"))
        #expect(StreamTopic(eventName: "chat", id: "9") == chat)
        #expect(StreamTopic(eventName: "badge", id: nil) == StreamTopic(.badge))
        // A chat's event without its id, a patch, a notification: no topic's whole view model.
        #expect(StreamTopic(eventName: "chat", id: nil) == nil)
        #expect(StreamTopic(eventName: "chat.patch", id: "9") == nil)
        #expect(StreamTopic(eventName: StreamTopic.notificationEventName, id: nil) == nil)
    }
}
