import TailorDomain
import TailorStore

/// Chats the writer has seen committed, by id, so that a message or a read
/// checks its chat's members without a query. A chat never changes once
/// stored (its pair and its creation are fixed, and chats are not deleted), so
/// what is here stays true. Only chats of committed batches come in: a chat
/// read or made inside a transaction that was then undone may not exist, and
/// its id may be given again. Used by the writer alone; a class, so that the
/// batch's applier and the writer share it without copying it.
final class CommittedChats {
    private var chats: [Int: Chat] = [:]
    /// Chats kept at most; past it, the memory starts over.
    let limit: Int

    init(limit: Int = 100_000) {
        self.limit = limit
    }

    subscript(id: Int) -> Chat? { chats[id] }

    /// Keeps the chats of a committed batch's outcomes.
    func noteCommitted(_ results: [Result<EventOutcome, any Error>]) {
        for case .success(let outcome) in results {
            switch outcome {
            case .chatOpened(let chat, _, _), .messageSent(_, let chat, _, _), .messagesRead(let chat, _, _, _):
                if chats[chat.id] == nil {
                    if chats.count >= limit { chats.removeAll(keepingCapacity: true) }
                    chats[chat.id] = chat
                }
            default:
                break
            }
        }
    }
}
