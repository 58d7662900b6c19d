import Synchronization

/// Whether the client that sent a request is still there to hear the answer:
/// its connection tells when the peer hangs up while the request is being
/// answered, so that costly work for it can be dropped.
public final class ClientPresence: Sendable {
    private let left = Atomic(false)

    public init() {}

    public var hasLeft: Bool { left.load(ordering: .relaxed) }

    public func noteLeft() {
        left.store(true, ordering: .relaxed)
    }
}
