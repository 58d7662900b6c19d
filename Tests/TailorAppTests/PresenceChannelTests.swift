import Logging
import TailorPresence
import TailorStore
import TailorTestSupport
import Testing

/// Presence's signals through PostgreSQL's notifications: what waits goes
/// together, in as few transactions as keep every signal.
@Suite struct PresenceChannelTests {
    @Test func aPayloadSentTwiceStartsANewRun() {
        #expect(PresenceChannel.runs(of: []) == [])
        #expect(PresenceChannel.runs(of: ["s h", "s b", "s i"]) == [["s h", "s b", "s i"]])
        #expect(PresenceChannel.runs(of: ["s o 5", "s f 5 -", "s o 5", "s h", "s f 5 -"]) == [["s o 5", "s f 5 -"], ["s o 5", "s h", "s f 5 -"]])
    }

    @Test func signalsSentTogetherComeInOrderFromOneTransactionEachRun() throws {
        guard case .postgres(let url) = try TestDatabase.fresh(.postgres) else { return }
        let listener = try PostgresConnection(url: url)
        let schema = try listener.first("SELECT current_schema()", binding: []) { $0.text(0) } ?? "public"
        try listener.execute("LISTEN \"tailor_presence_\(schema)\"")
        let channel = try PresenceChannel(url: url, logger: Logger(label: "test"))
        // A user gone and back within what waits: PostgreSQL delivers one of a payload sent twice in a transaction.
        let sent = ["s o 5", "s f 5 -", "s o 5", "s h", "s l 1 5,6"]
        channel.send(sent)
        let stop = channel.start(heard: { _ in }, connected: {})
        defer { stop() }
        var heard: [String] = []
        #expect(try eventually {
            heard += try listener.takeNotifications()
            return heard.count >= sent.count
        })
        #expect(heard == sent)
        // The channel counts a transaction once its commit has answered, which may be after the listener heard it.
        #expect(eventually { channel.transactions >= 2 })
        #expect(channel.transactions == 2, "each run of signals is one notifying transaction")
    }
}
