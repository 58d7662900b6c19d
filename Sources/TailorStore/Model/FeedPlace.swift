/// Which of the change feed's entries a snapshot of the database shows. On
/// PostgreSQL several servers commit at once and take their positions without
/// waiting for each other, so a snapshot may show an entry and not one
/// before it, still being committed: every entry through `through`, and
/// those of `beyond` past it. On SQLite, and wherever commits are applied
/// in order, `beyond` is empty.
public struct FeedPlace: Sendable, Equatable {
    public private(set) var through: Int
    /// Positions past `through` the snapshot shows, in order; none is `through + 1`.
    public private(set) var beyond: [Int]

    public init(through: Int, beyond: some Sequence<Int> = []) {
        self.through = through
        self.beyond = beyond.filter { $0 > through }.sorted()
        foldIn()
    }

    /// Whether the entry at `position` is in what the snapshot shows.
    public func shows(_ position: Int) -> Bool {
        position <= through || beyond.contains(position)
    }

    /// The feed was applied in order up to `position`: whatever showed this
    /// place shows every entry through it now.
    public mutating func pass(_ position: Int) {
        guard position > through else { return }
        through = position
        if !beyond.isEmpty { beyond.removeAll { $0 <= position } }
        foldIn()
    }

    /// Positions of `beyond` that follow `through` with none missing are part of it.
    private mutating func foldIn() {
        while beyond.first == through + 1 { through = beyond.removeFirst() }
    }
}
