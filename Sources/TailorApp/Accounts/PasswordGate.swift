import Logging
import TailorHTTP
import TailorLoop

/// Every use of a password goes through here: tries are counted per name and
/// client address, and per name from anywhere with a much larger allowance,
/// so that a guesser is slowed without locking the account's owner out; and
/// the hashing waits in a bounded queue where clients take turns.
final class PasswordGate: Sendable {
    private struct Try: Hashable, Sendable {
        let name: String
        let client: PeerAddress?
    }

    let hasher: PasswordHasher
    private let triesPerClient: RateLimiter<Try>
    private let triesPerName: RateLimiter<String>
    private let refusals: ThrottledLog

    init(hasher: PasswordHasher, perClient: RateLimit, perName: RateLimit, logger: Logger) {
        self.hasher = hasher
        triesPerClient = RateLimiter(perClient)
        triesPerName = RateLimiter(perName)
        refusals = ThrottledLog(logger: logger, level: .notice)
    }

    /// Counts one try of `name`'s password from the request's client; 429 past
    /// either limit. `name` is a valid account name: at most 32 bytes are kept.
    func admitTry(of name: String, for request: HTTPRequest) throws {
        let key = name.lowercased()
        if case .refused(let retryAfter) = triesPerClient.take(Try(name: key, client: request.client?.network)) {
            throw refused(name, for: retryAfter, request)
        }
        if case .refused(let retryAfter) = triesPerName.take(key) {
            throw refused(name, for: retryAfter, request)
        }
    }

    private func refused(_ name: String, for retryAfter: Int, _ request: HTTPRequest) -> HTTPError {
        refusals.log("tries of the password of \(name) refused for \(retryAfter) s: too many (request \(request.id ?? "-"))")
        return APIError.rateLimited("tries of this name's password", retryAfter: retryAfter)
    }

    /// A new stored hash of `password`, made in the request's turn.
    func hash(_ password: String, for request: HTTPRequest) async throws -> String {
        do {
            return try await hasher.hash(password, for: PasswordQueue.Requester(request))
        } catch {
            throw Self.answer(for: error)
        }
    }

    /// Whether `password` is the one `stored` was made from, checked in the request's turn.
    func verify(_ password: String, against stored: String?, for request: HTTPRequest) async throws -> Bool {
        do {
            return try await hasher.verify(password, against: stored, for: PasswordQueue.Requester(request))
        } catch {
            throw Self.answer(for: error)
        }
    }

    private static func answer(for refusal: PasswordQueue.Refusal) -> HTTPError {
        switch refusal {
        case .full:
            HTTPError(.serviceUnavailable, code: "busy", message: "Too many passwords are being checked; try again.",
                      headers: [HTTPField("Retry-After", "1")])
        case .clientsShareTaken:
            APIError.rateLimited("passwords checked at once from this address", retryAfter: 1)
        case .clientLeft:
            HTTPError(.clientClosedRequest, code: "client_left", message: "The client left before its password was checked.")
        }
    }
}
