import Foundation
import TailorLoop
import Testing

/// A thread-confined value in a debug build: its thread may use it, a pool
/// may hand it to another, and a second thread using it stops the program.
@Suite struct ThreadConfinedTests {
    /// Runs `body` on a thread of its own and waits for it.
    private func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        done.wait()
    }

    @Test func aValueHandedOverIsUsedByTheNextThread() {
        let box = ThreadConfined([1, 2, 3])
        onAnotherThread {
            _ = box.value
            box.handOver()
        }
        #expect(box.value == [1, 2, 3])
        box.handOver()
        onAnotherThread { _ = box.value }
    }

    #if DEBUG
    @Test func aSecondThreadsUseStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let box = ThreadConfined(7)
            _ = box.value
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                _ = box.value
                done.signal()
            }
            done.wait()
        }
    }
    #endif
}
