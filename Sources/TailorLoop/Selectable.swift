/// Something an event loop watches with epoll: a listening socket or a connection.
///
/// Every method is called on the loop's own thread.
protocol Selectable: AnyObject {
    var fd: Int32 { get }
    /// Monotonic nanoseconds after which `deadlinePassed` is called; 0 for none.
    var deadline: UInt64 { get }
    /// epoll reported `flags` (`CSYSTEM_READABLE`, …) for this fd.
    func ready(flags: UInt32)
    func deadlinePassed()
}
