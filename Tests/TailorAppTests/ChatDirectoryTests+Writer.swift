@testable import TailorApp
@testable import TailorDomain
import TailorStore
@testable import TailorViews

extension ChatDirectoryTests {
    /// Applies events as the writer does and hands the outcomes on.
    final class Writer {
        let database: Database
        let connection: any DatabaseConnection
        let directory: ChatDirectory
        let committedChats = CommittedChats()
        var clock = 1_000
        /// The users the kept chats keep, as this server serves them: everyone unless told.
        var keeps: (Int) -> Bool = { _ in true }

        convenience init(path: String, directory: ChatDirectory) throws {
            try self.init(location: .sqlite(path: path), directory: directory)
        }

        init(location: DatabaseLocation, directory: ChatDirectory) throws {
            (database, connection) = try Database.open(location)
            self.directory = directory
        }

        var store: Store { Store(connection) }

        @discardableResult
        func apply(_ events: Event...) throws -> [EventOutcome] {
            try apply(contentsOf: events)
        }

        /// The events in one batch, at one time.
        @discardableResult
        func apply(contentsOf events: [Event]) throws -> [EventOutcome] {
            clock += 1_000
            let applier = EventApplier(store: store, quotas: Quotas(), committedChats: committedChats, pushDelay: 0,
                                       feed: try FeedAppender(store: store, window: 1))
            let outcomes = try connection.transaction { try events.map { try applier.apply($0, at: clock) } }
            committedChats.noteCommitted(outcomes.map { .success($0) })
            directory.committed(outcomes.flatMap(Change.changes(of:)), at: clock, snapshot: FeedSnapshot(store, showing: clock), keeping: keeps)
            return outcomes
        }

        func signUp(_ name: String) throws -> User {
            guard case .signedUp(let user, _) = try apply(.account(.signUp(name: name, tokenHash: Array(name.utf8), session: nil, passwordHash: nil)))[0] else {
                throw StoreError.notFound
            }
            return user
        }

        func open(_ user: User, with contact: String) throws -> Chat {
            guard case .chatOpened(let chat, _, _) = try apply(.chat(.open(user: user.id, contact: contact)))[0] else {
                throw StoreError.notFound
            }
            return chat
        }

        func send(_ text: String, from user: User, in chat: Chat, clientID: String? = nil) throws {
            try apply(.message(.send(chat: chat.id, sender: user.id, text: text, clientID: clientID)))
        }

        func read(_ chat: Chat, by user: User) throws {
            try apply(.message(.read(chat: chat.id, reader: user.id)))
        }
    }
}
