import Logging
import Synchronization
import TailorHTTP
import TailorLoop
import TailorStore

/// The built-in user `bot`: it reads a message sent to it after a delay and
/// answers, through the same event router as any other source would. Each
/// server answers every message it follows in the feed; the answers are one
/// message in the database, so the bot answers once however many servers run,
/// and still answers when the server that took the message is gone.
final class Chatbot: Sendable {
    let botID: Int
    let delay: Double
    private let connection = Mutex<Connection?>(nil)
    private let failures: ThrottledLog

    init(botID: Int, delay: Double, logger: Logger) {
        self.botID = botID
        self.delay = delay
        failures = ThrottledLog(logger: logger)
    }

    /// The router the bot answers through, held weakly: the router's handler
    /// holds the bot, and a strong hold both ways would keep a stopped
    /// server's router, with its threads, alive.
    private struct Connection {
        weak var router: EventRouter?
        let loops: EventLoopGroup
    }

    /// Connects the bot to the router it answers through (made after the bot), and
    /// to the loops its waits run on.
    func attach(to router: EventRouter, loops: EventLoopGroup) {
        connection.withLock { $0 = Connection(router: router, loops: loops) }
    }

    /// Called for every committed message; answers those sent to the bot.
    func heard(_ message: Message, in chat: Chat) {
        guard message.senderID != botID, chat.includes(botID), let connection = connection.withLock({ $0 }),
              let router = connection.router else { return }
        let loops = connection.loops
        let delay = delay
        let botID = botID
        let failures = failures
        Task(executorPreference: loops.next()) {
            try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            do {
                try await router.markRead(chat: chat.id, reader: botID)
                // Every server that follows the feed hears the message and answers;
                // the client id makes the answers one message, whoever is first.
                _ = try await router.send(chat: chat.id, sender: botID, text: Self.answer(to: message.text), clientID: Self.answerID(to: message))
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
