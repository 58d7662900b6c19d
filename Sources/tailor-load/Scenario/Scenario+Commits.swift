import TailorLoop

extension Scenario {
    /// The servers' commits so far, summed from each one's `/metrics`; nil when
    /// one of them has none to give (an older server, or one that did not
    /// answer): the report then leaves the figures out rather than show a part.
    func writerCommits() async -> WriterCommits? {
        let loop = group.loops[0]
        let timeout = settings.requestTimeout
        var total = WriterCommits(commits: 0, events: 0)
        for target in targets {
            let scraped = await Task(executorPreference: loop) { () -> WriterCommits? in
                let connection = HTTPClientConnection(target: target, loop: loop)
                // Why it failed does not matter here: without figures from every server, none are shown.
                guard let answer = try? await connection.send("GET", "/metrics", token: nil, timeout: timeout), answer.status == 200 else {
                    return nil
                }
                return WriterCommits(metrics: answer.text)
            }.value
            guard let scraped else { return nil }
            total = total + scraped
        }
        return total
    }
}
