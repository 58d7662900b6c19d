import TailorDomain
import TailorStore
import TailorViews
import TailorWire

/// The changes of one commit as the feed's table stores them: a JSON array,
/// one object per change, its kind under `"k"`. Read by every server that
/// follows the feed, so a field is never renamed, only added.
package enum ChangeEncoding {
    package static func bytes(of changes: [Change]) -> [UInt8] {
        var json = JSONWriter(capacity: 64 * changes.count)
        json.array(count: changes.count) { json, index in
            write(changes[index], to: &json)
        }
        return json.bytes
    }

    /// The changes `bytes` hold; `Unreadable` when they are not what `bytes(of:)` writes.
    package static func changes(from bytes: [UInt8]) throws -> [Change] {
        guard case .array(let items) = try JSONParser.parse(bytes) else { throw Unreadable() }
        return try items.map(change)
    }

    package struct Unreadable: Error, CustomStringConvertible {
        package var description: String { "a change in the feed could not be read" }
    }

    private static func write(_ change: Change, to json: inout JSONWriter) {
        json.object { json in
            switch change {
            case .signedUp(let user):
                json.field("k", "signedUp")
                json.field("user", user)
            case .chatOpened(let chat):
                json.field("chat", ChatFields(chat))
                json.field("k", "chatOpened")
            case .messageSent(let message, let chat):
                json.field("chat", ChatFields(chat))
                json.field("clientId", message.clientID)
                json.field("id", message.id)
                json.field("k", "messageSent")
                json.field("sender", message.senderID)
                json.field("sentAt", message.sentAt)
                json.field("text", message.text)
            case .messagesRead(let chat, let reader, let time):
                json.field("at", time)
                json.field("chat", ChatFields(chat))
                json.field("k", "messagesRead")
                json.field("reader", reader)
            case .orderChanged(let user, let order):
                json.field("k", "orderChanged")
                json.field("order", order)
                json.field("user", user)
            case .orderDeleted(let user, let order):
                json.field("k", "orderDeleted")
                json.field("order", order)
                json.field("user", user)
            case .sessionEnded(let hash):
                json.field("k", "sessionEnded")
                json.field("tokenHash", Hex.text(hash))
            case .pushesQueued(let message, let chat, let recipient):
                json.field("chat", ChatFields(chat))
                json.field("k", "pushesQueued")
                json.field("message", message)
                json.field("recipient", recipient)
            case .lastSeen(let user, let time):
                json.field("at", time)
                json.field("k", "lastSeen")
                json.field("user", user)
            case .chatBlocked(let chat, let user, let blocked):
                json.field("blocked", blocked)
                json.field("chat", ChatFields(chat))
                json.field("k", "chatBlocked")
                json.field("user", user)
            case .privacyChanged(let user, let shows):
                json.field("k", "privacyChanged")
                json.field("showsPresence", shows)
                json.field("user", user)
            case .accountDisabled(let user):
                json.field("k", "accountDisabled")
                json.field("user", user)
            }
        }
    }

    private struct ChatFields: JSONWritable {
        let chat: Chat
        init(_ chat: Chat) { self.chat = chat }

        func write(to json: inout JSONWriter) {
            json.object {
                $0.field("createdAt", chat.createdAt)
                $0.field("id", chat.id)
                $0.field("userA", chat.userA)
                $0.field("userB", chat.userB)
            }
        }
    }

    private static func change(_ value: JSONValue) throws -> Change {
        let fields = try Fields(value)
        switch try fields.string("k") {
        case "signedUp":
            return .signedUp(user: try fields.int("user"))
        case "chatOpened":
            return .chatOpened(try fields.chat())
        case "messageSent":
            let chat = try fields.chat()
            return .messageSent(Message(id: try fields.int("id"), chatID: chat.id, senderID: try fields.int("sender"),
                                        text: try fields.string("text"), clientID: fields.optionalString("clientId"),
                                        sentAt: try fields.int("sentAt"), isRead: false), in: chat)
        case "messagesRead":
            return .messagesRead(chat: try fields.chat(), reader: try fields.int("reader"), at: try fields.int("at"))
        case "orderChanged":
            return .orderChanged(user: try fields.int("user"), order: try fields.int("order"))
        case "orderDeleted":
            return .orderDeleted(user: try fields.int("user"), order: try fields.int("order"))
        case "pushesQueued":
            return .pushesQueued(message: try fields.int("message"), chat: try fields.chat(), recipient: try fields.int("recipient"))
        case "lastSeen":
            return .lastSeen(user: try fields.int("user"), at: try fields.int("at"))
        case "chatBlocked":
            return .chatBlocked(chat: try fields.chat(), by: try fields.int("user"), blocked: try fields.bool("blocked"))
        case "privacyChanged":
            return .privacyChanged(user: try fields.int("user"), showsPresence: try fields.bool("showsPresence"))
        case "accountDisabled":
            return .accountDisabled(user: try fields.int("user"))
        case "sessionEnded":
            guard let hash = Hex.bytes(try fields.string("tokenHash")) else { throw Unreadable() }
            return .sessionEnded(tokenHash: hash)
        default:
            throw Unreadable()
        }
    }

    /// An object's members, read by name.
    private struct Fields {
        let members: [String: JSONValue]

        init(_ value: JSONValue) throws {
            guard case .object(let members) = value else { throw Unreadable() }
            self.members = members
        }

        func int(_ name: String) throws -> Int {
            guard case .integer(let number) = members[name], let integer = Int(exactly: number) else { throw Unreadable() }
            return integer
        }

        func string(_ name: String) throws -> String {
            guard case .string(let text) = members[name] else { throw Unreadable() }
            return text
        }

        func bool(_ name: String) throws -> Bool {
            guard case .bool(let value) = members[name] else { throw Unreadable() }
            return value
        }

        func optionalString(_ name: String) -> String? {
            guard case .string(let text) = members[name] else { return nil }
            return text
        }

        func chat() throws -> Chat {
            guard let value = members["chat"] else { throw Unreadable() }
            let chat = try Fields(value)
            return Chat(id: try chat.int("id"), userA: try chat.int("userA"), userB: try chat.int("userB"), createdAt: try chat.int("createdAt"))
        }
    }
}
