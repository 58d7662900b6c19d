extension Store {
    /// Writes the one row of `readiness`: a commit of it proves that the
    /// database takes writes (the disk has room, the file is writable).
    /// Every server writes this row, so on PostgreSQL it goes with its
    /// `COMMIT` in one round trip: a server that stops in the middle never
    /// holds it while the others' readiness waits.
    public func recordReadiness(at now: Int) throws {
        _ = try connection.firstCommitting("UPDATE readiness SET checked_at = ? WHERE id = 1 RETURNING id", now) { $0.int(0) }
    }
}
