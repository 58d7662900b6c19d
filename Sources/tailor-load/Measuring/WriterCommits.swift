/// The servers' commits, from the writer's batch histogram in their
/// `/metrics` (`tailor_writer_batch_events`): how many batches were committed
/// and how many events they held, summed over the servers of a run.
struct WriterCommits: Sendable, Equatable {
    let commits: Double
    let events: Double

    /// The figures of one scrape; nil when it has no batch histogram.
    init?(metrics text: String) {
        var commits: Double?
        var events: Double?
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Double(parts[1]) else { continue }
            switch parts[0] {
            case "tailor_writer_batch_events_count": commits = value
            case "tailor_writer_batch_events_sum": events = value
            default: break
            }
        }
        guard let commits, let events else { return nil }
        self.commits = commits
        self.events = events
    }

    init(commits: Double, events: Double) {
        self.commits = commits
        self.events = events
    }

    static func + (left: WriterCommits, right: WriterCommits) -> WriterCommits {
        WriterCommits(commits: left.commits + right.commits, events: left.events + right.events)
    }

    static func - (left: WriterCommits, right: WriterCommits) -> WriterCommits {
        WriterCommits(commits: left.commits - right.commits, events: left.events - right.events)
    }
}
