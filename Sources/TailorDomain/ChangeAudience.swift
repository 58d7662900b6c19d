/// Whom an entry of the feed concerns: the users whose view models its
/// changes may touch, or everyone. The writer records it beside the entry
/// (`changes.users`) and announces it on the bus, so that a server that
/// serves none of those users passes the entry over without decoding it,
/// and a stream resuming where its user was not served finds its user's
/// entries again.
package enum ChangeAudience {
    /// The users `changes` touch, sorted, once each; nil for an entry that
    /// every server applies: a session ended or an account disabled (their
    /// credentials may be kept on any server), a change of presence (it
    /// changes the views of contacts it does not name), and a new user or
    /// chat: rare, and kept by every server's kept chats, so that a server
    /// where the user comes to be served has them already rather than read
    /// them on the feed's thread at their first message.
    package static func users(of changes: [Change]) -> [Int]? {
        var users = Set<Int>()
        for change in changes {
            switch change {
            case .orderChanged(let user, _), .orderDeleted(let user, _), .pushesQueued(_, _, let user):
                users.insert(user)
            case .messageSent(_, let chat), .messagesRead(let chat, _, _), .chatBlocked(let chat, _, _):
                users.insert(chat.userA)
                users.insert(chat.userB)
            case .sessionEnded, .accountDisabled, .lastSeen, .privacyChanged, .signedUp, .chatOpened:
                return nil
            }
        }
        return users.sorted()
    }
}
