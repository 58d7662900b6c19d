import TailorViews

/// A presence signal as a notification's payload: the sending server's name,
/// a letter for the kind, and its numbers, separated by spaces, e.g.
/// `k3j9 t 12 4 7` (server k3j9: user 4 types in chat 12, to user 7).
extension PresenceSignal {
    package func payload(from server: String) -> String {
        switch self {
        case .online(let user): "\(server) o \(user)"
        case .offline(let user, let lastSeen): "\(server) f \(user) \(lastSeen.map(String.init) ?? "-")"
        case .typing(let chat, let user, let contact): "\(server) t \(chat) \(user) \(contact)"
        case .here(let users, let replacing): "\(server) l \(replacing ? 1 : 0) " + users.map(String.init).joined(separator: ",")
        case .hello: "\(server) q"
        case .heartbeat: "\(server) h"
        case .onBus: "\(server) b"
        case .routesByInterest: "\(server) i"
        case .applied(let position): "\(server) a \(position)"
        case .rollCall: "\(server) r"
        }
    }

    /// The signal and its sender; nil for a payload this server does not
    /// know (a newer server's).
    package static func read(_ payload: String) -> (signal: PresenceSignal, sender: String)? {
        let parts = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        let sender = String(parts[0])
        let numbers = parts.dropFirst(2).map { Int($0) }
        let signal: PresenceSignal
        switch (parts[1], numbers.count) {
        case ("o", 1):
            guard let user = numbers[0] else { return nil }
            signal = .online(user: user)
        case ("f", 2):
            guard let user = numbers[0], numbers[1] != nil || parts[3] == "-" else { return nil }
            signal = .offline(user: user, lastSeen: numbers[1])
        case ("t", 3):
            guard let chat = numbers[0], let user = numbers[1], let contact = numbers[2] else { return nil }
            signal = .typing(chat: chat, user: user, contact: contact)
        case ("l", 2):
            let listed = parts[3].split(separator: ",")
            let users = listed.compactMap { Int($0) }
            guard let replacing = numbers[0], users.count == listed.count else { return nil }
            signal = .here(users: users, replacing: replacing == 1)
        case ("q", 0):
            signal = .hello
        case ("h", 0):
            signal = .heartbeat
        case ("b", 0):
            signal = .onBus
        case ("i", 0):
            signal = .routesByInterest
        case ("a", 1):
            guard let position = numbers[0] else { return nil }
            signal = .applied(position: position)
        case ("r", 0):
            signal = .rollCall
        default:
            return nil
        }
        return (signal, sender)
    }
}
