import TailorHTTP

/// What building one view model came to. A failure is not an absence: a busy
/// database must never reach a client as "this chat was deleted".
enum ViewBuild: Sendable {
    case built(CachedRepresentation)
    /// Not this user's to see: an unknown id, another user's chat or order,
    /// or one deleted since.
    case notVisible
    /// The store failed; the view is as it was, and the build may be tried again.
    case failed(any Error)
}
