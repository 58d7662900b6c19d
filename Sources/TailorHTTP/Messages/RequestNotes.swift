import Synchronization

/// What handlers learn about a request that its access-log line tells: who
/// made it. Made only when answers are observed (an access log is kept).
public final class RequestNotes: Sendable {
    private let state = Mutex<Int?>(nil)

    public init() {}

    /// The signed-in user the request was made as.
    public var userID: Int? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
