import Synchronization

/// The latest message list of each chat screen (a chat as one of its users
/// sees it), kept so that a rebuild writes only what changed: a new message
/// rebuilds both users' screens of up to 50 messages, and all but one of those
/// messages are as they were.
///
/// An entry can be old but never wrong: a message's JSON depends only on the
/// message, its reader and whether it was read, and only the last can change,
/// which a list writes from each build's read state as it encodes. Memory is bounded by two generations: when the newer
/// one holds half the budget, the older one is dropped.
package final class MessagePages: Sendable {
    package struct Screen: Hashable, Sendable {
        package let chat: Int
        package let viewer: Int
    }

    /// Bytes of message JSON kept at most, over both generations.
    package static let byteBudget = 16 * 1024 * 1024

    private struct Generations {
        var newer: [Screen: MessageList] = [:]
        var older: [Screen: MessageList] = [:]
        var newerBytes = 0
    }

    private let generations = Mutex(Generations())

    package func latest(of screen: Screen) -> MessageList? {
        generations.withLock { $0.newer[screen] ?? $0.older[screen] }
    }

    package func keep(_ list: MessageList, for screen: Screen) {
        generations.withLock { generations in
            if generations.newerBytes >= Self.byteBudget / 2 {
                generations.older = generations.newer
                generations.newer = [:]
                generations.newerBytes = 0
            }
            generations.newerBytes += list.bytes.count - (generations.newer[screen]?.bytes.count ?? 0)
            generations.newer[screen] = list
        }
    }
}
