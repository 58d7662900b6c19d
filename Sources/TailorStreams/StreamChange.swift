/// A stream of `user` opened or closed: what presence hears, in the order
/// streams open and close, as values (`EventStreams.streamChanges`), so that
/// nothing outside the hub is called while a lane visits its state.
package struct StreamChange: Sendable, Equatable {
    package let user: Int
    package let opened: Bool
}
