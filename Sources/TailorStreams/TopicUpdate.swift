/// What one change of a topic's view model sends to the streams that follow
/// it, made once for all of them: the whole new view model, and for streams
/// that take patches, the patch from the version before.
package struct TopicUpdate: Sendable {
    /// A version no stream is known to have.
    package static let unknown: UInt64 = 0

    package let whole: StreamEvent
    /// The new version, for the next patch; `unknown` when no patch can follow it.
    package let version: UInt64
    /// The patch, when one was found and is smaller than the whole view model.
    package let patch: StreamEvent?
    /// The version the patch applies to.
    package let base: UInt64
    /// Made again without a change of its own (after a failed build, at
    /// midnight), at the latest position published: what it shows may be new
    /// even to a stream whose view model is as of a later position.
    package let isRebuild: Bool

    package init(whole: StreamEvent, version: UInt64 = TopicUpdate.unknown, patch: StreamEvent? = nil, base: UInt64 = TopicUpdate.unknown,
         isRebuild: Bool = false) {
        self.whole = whole
        self.version = version
        self.patch = patch
        self.base = base
        self.isRebuild = isRebuild
    }
}
