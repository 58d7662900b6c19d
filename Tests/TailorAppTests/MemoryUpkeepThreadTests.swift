import Glibc
import Logging
@testable import TailorApp
@testable import TailorDomain
import TailorLoop
import TailorTestSupport
@testable import TailorStreams
@testable import TailorViews
import Testing

/// The upkeep looks at the process on a thread of its own, not on a loop, and
/// ends when stopped.
@Suite struct MemoryUpkeepThreadTests {
    @Test func itLooksOnItsOwnThreadUntilStopped() {
        let upkeep = MemoryUpkeepThread(interval: 0.01, openConnections: { 0 }, logger: Logger(label: "test"))
        let stop = upkeep.start()
        #expect(eventually(timeout: 30) { upkeep.looks >= 3 })
        #expect(ThreadNames.threads(named: "upkeep") >= 1)
        stop()
        let looksWhenStopped = upkeep.looks
        #expect(throughout(0.05) { upkeep.looks == looksWhenStopped })
    }
}
