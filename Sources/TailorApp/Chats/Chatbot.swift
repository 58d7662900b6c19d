import Logging
import TailorHTTP
import TailorLoop
import TailorStore

/// The built-in user `bot`: it reads a message sent to it after a delay,
/// types for as long again, at most `maxTyping` ("typing…" on the sender's
/// screen), and answers,
/// through the same event router as any other source would. Each
/// server answers every message it follows in the feed; the answers are one
/// message in the database, so the bot answers once however many servers run,
/// and still answers when the server that took the message is gone.
final class Chatbot: Sendable {
    /// A message heard in one of the bot's chats.
    struct Heard: Sendable {
        let message: Message
        let chat: Chat
    }

    let botID: Int
    let delay: Double
    private let router: EventRouter
    /// Says the bot types in a chat, to the user on its other side.
    private let typing: @Sendable (_ chat: Int, _ contact: Int) -> Void
    private let loops: EventLoopGroup
    private let failures: ThrottledLog

    /// Made after the router it answers through. What it hears comes as a
    /// stream that the router's handler feeds (`FeedNews`), so the handler
    /// never holds the bot, nor the bot's router through it.
    init(botID: Int, delay: Double, router: EventRouter, typing: @escaping @Sendable (_ chat: Int, _ contact: Int) -> Void,
         loops: EventLoopGroup, logger: Logger) {
        self.botID = botID
        self.delay = delay
        self.router = router
        self.typing = typing
        self.loops = loops
        failures = ThrottledLog(logger: logger)
    }

    /// Whether a committed message is one the bot answers: sent to it, not by it.
    static func isForBot(_ message: Message, in chat: Chat, botID: Int) -> Bool {
        message.senderID != botID && chat.includes(botID)
    }

    /// Answers what `heard` brings, on `loop`, until it ends or the returned
    /// stop is called.
    func start(hearing heard: AsyncStream<Heard>, on loop: EventLoop) -> Part.Stop {
        let answering = Task(executorPreference: loop) { [self] in
            for await heard in heard { answerLater(heard.message, in: heard.chat) }
        }
        return { answering.cancel() }
    }

    /// Seconds the bot types at most before an answer.
    static let maxTyping = 0.5

    /// Reads the message after `delay`, types as long (at most `maxTyping`), and answers it.
    private func answerLater(_ message: Message, in chat: Chat) {
        let (router, delay, botID, failures, typing) = (router, delay, botID, failures, typing)
        Task(executorPreference: loops.next()) {
            try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            do {
                try await router.markRead(chat: chat.id, reader: botID)
                typing(chat.id, chat.contact(of: botID))
                // Cancelled only as the server stops: the answer then goes out at once.
                try? await Task.sleep(for: .milliseconds(Int(min(delay, Self.maxTyping) * 1000)))
                // Every server that follows the feed hears the message and answers;
                // the client id makes the answers one message, whoever is first.
                _ = try await router.send(chat: chat.id, sender: botID, text: Self.answer(to: message.text), clientID: Self.answerID(to: message))
            } catch StoreError.blocked {
                // Blocked meanwhile: the bot may not answer, and nothing went wrong.
            } catch {
                failures.log("the bot did not answer message \(message.id) in chat \(chat.id): \(error)")
            }
        }
    }

    /// The client id of the bot's answer to `message`: the same on every server.
    static func answerID(to message: Message) -> String {
        "answer-to-\(message.id)"
    }

    /// An answer that shows the bot understood: a greeting back, or the text echoed.
    static func answer(to text: String) -> String {
        let lowered = text.lowercased()
        if ["hi", "hello", "hey", "hallo", "привет"].contains(where: { lowered.hasPrefix($0) }) {
            return "Hello! I am the Tailor bot. Write me anything and I will answer."
        }
        if lowered.hasSuffix("?") {
            return "Good question: \"\(text)\" — I only echo, but every answer arrives live."
        }
        return "You said: \"\(text)\""
    }
}
