import TailorHTTP

/// What building one view model came to. A failure is not an absence: a busy
/// database must never reach a client as "this chat was deleted".
package enum ViewBuild: Sendable {
    /// With the view model's layout when it was asked for (for a patch).
    case built(CachedRepresentation, JSONLayout?)
    /// Not this user's to see: an unknown id, another user's chat or order,
    /// or one deleted since.
    case notVisible
    /// The store failed; the view is as it was, and the build may be tried again.
    case failed(any Error)
}
