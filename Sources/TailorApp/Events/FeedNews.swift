import TailorStore

/// What the feed tells the parts that follow it beside the views, as streams
/// they read in order: the messages the bot is to answer, and the pushes
/// queued for users. The feed's handler yields into them and holds neither
/// the chatbot nor the push delivery, which are made after the router that
/// the feed belongs to; each of them iterates its own stream.
struct FeedNews: Sendable {
    /// The pushes of `message` were queued for `recipient`.
    struct PushesQueued: Sendable {
        let message: Int
        let chat: Int
        let recipient: Int
    }

    let forBot: AsyncStream<Chatbot.Heard>
    let pushesQueued: AsyncStream<PushesQueued>
    private let botID: Int
    private let forBotIn: AsyncStream<Chatbot.Heard>.Continuation
    private let pushesQueuedIn: AsyncStream<PushesQueued>.Continuation

    /// News waiting for its reader at most, per stream; past it the oldest is
    /// passed over (the push delivery also looks at the outbox every few seconds).
    static let maxWaiting = 10_000

    init(botID: Int) {
        self.botID = botID
        (forBot, forBotIn) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(Self.maxWaiting))
        (pushesQueued, pushesQueuedIn) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(Self.maxWaiting))
    }

    /// A message was committed: the bot hears it when it is the bot's to answer.
    func sent(_ message: Message, in chat: Chat) {
        if Chatbot.isForBot(message, in: chat, botID: botID) { forBotIn.yield(Chatbot.Heard(message: message, chat: chat)) }
    }

    func queued(_ pushes: PushesQueued) {
        pushesQueuedIn.yield(pushes)
    }

    /// The server stops: both readers' loops end.
    func finish() {
        forBotIn.finish()
        pushesQueuedIn.finish()
    }
}
