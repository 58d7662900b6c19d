extension Store {
    /// Writes the one row of `readiness`: a commit of it proves that the
    /// database takes writes (the disk has room, the file is writable).
    public func recordReadiness(at now: Int) throws {
        _ = try connection.run("UPDATE readiness SET checked_at = ? WHERE id = 1", now)
    }
}
