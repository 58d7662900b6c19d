import CLibCurl
import Synchronization
import TailorLoop

/// One push for a push service: where, with which fields, and the encrypted body.
public struct PushRequest: Sendable {
    public let url: String
    public let fields: [String]
    public let body: [UInt8]

    public init(url: String, fields: [String], body: [UInt8]) {
        self.url = url
        self.fields = fields
        self.body = body
    }
}

/// What became of a push.
public enum PushResponse: Sendable, Equatable {
    /// The push could not be made (its subscription's keys or endpoint are
    /// unusable): nothing was sent.
    case unmade(String)
    /// The push service answered `status`, with `Retry-After` in seconds when it gave one.
    case answered(status: Int, retryAfter: Int?)
    /// No answer: a connection, TLS or time limit failure, as libcurl says it.
    case failed(String)
}

/// Posts pushes to push services over HTTPS with libcurl, on a thread of its
/// own (`push`) so that neither a loop nor the writer ever waits for one.
///
/// Every push in flight shares one transfer loop (libcurl's multi
/// interface), and each is answered the moment its own transfer ends: a push
/// service that is slow or never answers holds up its own pushes only, each
/// for at most `timeout`, never a push that another service has answered.
/// The loop runs while pushes are in flight or waiting, and ends when none
/// are; the next push starts it again.
public final class PushClient: Sendable {
    private let thread = SerialThread(name: "push")
    /// Certificate authorities to trust instead of the system's (a test's push service).
    private let caFile: String?
    private let timeoutMilliseconds: Int
    private let multi: MultiHandle
    private let inbox = Mutex(Inbox())

    private struct Inbox {
        var waiting: [Waiting] = []
        /// Whether the transfer loop runs (or is about to).
        var running = false
    }

    private struct Waiting: Sendable {
        let make: @Sendable () throws -> PushRequest
        let answer: CheckedContinuation<PushResponse, Never>
    }

    /// libcurl's global set-up, once per process: it is not safe to run twice at once.
    private static let libraryReady: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    public init(caFile: String?, timeoutSeconds: Double) {
        _ = Self.libraryReady
        self.caFile = caFile
        timeoutMilliseconds = Int(timeoutSeconds * 1000)
        multi = MultiHandle()
    }

    /// Makes the push (its encryption too runs on the push thread) and sends
    /// it beside every other in flight; answers once its own transfer ends.
    public func send(_ make: @escaping @Sendable () throws -> PushRequest) async -> PushResponse {
        await withCheckedContinuation { answer in
            let start = inbox.withLock { inbox -> Bool in
                inbox.waiting.append(Waiting(make: make, answer: answer))
                defer { inbox.running = true }
                return !inbox.running
            }
            if start {
                thread.async { [self] in runTransfers() }
            } else {
                multi.wakeUp()
            }
        }
    }

    /// A transfer in flight: its field list, freed with it, and who waits for it.
    private struct Transfer {
        let fields: UnsafeMutablePointer<curl_slist>?
        let answer: CheckedContinuation<PushResponse, Never>
    }

    /// The transfer loop, on the push thread: takes waiting pushes in, drives
    /// every transfer, answers those that ended, and waits for the network or
    /// a new push; returns once nothing is in flight and nothing waits.
    private func runTransfers() {
        guard let handle = multi.handle else {
            let waiting = inbox.withLock { inbox in
                inbox.running = false
                defer { inbox.waiting.removeAll() }
                return inbox.waiting
            }
            for push in waiting { push.answer.resume(returning: .failed("libcurl could not start")) }
            return
        }
        var transfers: [UnsafeMutableRawPointer: Transfer] = [:]
        while true {
            let taken = inbox.withLock { inbox -> [Waiting]? in
                if inbox.waiting.isEmpty && transfers.isEmpty {
                    inbox.running = false
                    return nil
                }
                defer { inbox.waiting.removeAll() }
                return inbox.waiting
            }
            guard let taken else { return }
            for waiting in taken {
                let request: PushRequest
                do {
                    request = try waiting.make()
                } catch {
                    waiting.answer.resume(returning: .unmade(String(describing: error)))
                    continue
                }
                guard let easy = curl_easy_init() else {
                    waiting.answer.resume(returning: .failed("libcurl could not start a transfer"))
                    continue
                }
                let fields = request.fields.reduce(nil as UnsafeMutablePointer<curl_slist>?) { curl_slist_append($0, $1) }
                prepare(easy, for: request, fields: fields)
                curl_multi_add_handle(handle, easy)
                transfers[easy] = Transfer(fields: fields, answer: waiting.answer)
            }
            var running: Int32 = 0
            if curl_multi_perform(handle, &running) != CURLM_OK {
                for easy in Array(transfers.keys) { finish(easy, of: &transfers, on: handle, as: .failed("libcurl's transfers failed")) }
                continue
            }
            var left: Int32 = 0
            while let message = curl_multi_info_read(handle, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                finish(easy, of: &transfers, on: handle, as: response(of: easy, result: message.pointee.data.result))
            }
            // Woken early by the network, a new push, or libcurl's own timers.
            if !transfers.isEmpty { curl_multi_poll(handle, nil, 0, 1000, nil) }
        }
    }

    private func finish(_ easy: UnsafeMutableRawPointer, of transfers: inout [UnsafeMutableRawPointer: Transfer],
                        on handle: UnsafeMutableRawPointer, as response: PushResponse) {
        guard let transfer = transfers.removeValue(forKey: easy) else { return }
        curl_multi_remove_handle(handle, easy)
        curl_easy_cleanup(easy)
        curl_slist_free_all(transfer.fields)
        transfer.answer.resume(returning: response)
    }

    private func prepare(_ handle: UnsafeMutableRawPointer, for request: PushRequest, fields: UnsafeMutablePointer<curl_slist>?) {
        tailor_curl_set_pointer(handle, CURLOPT_URL, request.url)
        tailor_curl_set_long(handle, CURLOPT_POST, 1)
        tailor_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, request.body.count)
        request.body.withUnsafeBytes { _ = tailor_curl_set_pointer(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
        tailor_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeRawPointer(fields))
        tailor_curl_set_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
        // Only https, and never to wherever a redirect would send it.
        tailor_curl_set_pointer(handle, CURLOPT_PROTOCOLS_STR, "https")
        tailor_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        tailor_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        if let caFile { tailor_curl_set_pointer(handle, CURLOPT_CAINFO, caFile) }
        // The answer's body is not needed; without a function libcurl prints it.
        let discard: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { _, size, count, _ in size * count }
        tailor_curl_set_pointer(handle, CURLOPT_WRITEFUNCTION, unsafeBitCast(discard, to: UnsafeRawPointer.self))
    }

    private func response(of handle: UnsafeMutableRawPointer, result: CURLcode) -> PushResponse {
        var status = 0
        tailor_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        guard status > 0 else { return .failed(String(cString: curl_easy_strerror(result))) }
        var header: UnsafeMutablePointer<curl_header>?
        var retryAfter: Int?
        if curl_easy_header(handle, "Retry-After", 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK, let value = header?.pointee.value {
            retryAfter = Int(String(cString: value).trimmingPrefix(while: { $0 == " " }))
        }
        return .answered(status: status, retryAfter: retryAfter)
    }
}

/// libcurl's multi handle.
///
/// `@unchecked Sendable`: it is driven only on the push thread (the transfer
/// loop); other threads only wake it, and `curl_multi_wakeup` is the one call
/// libcurl allows on a multi handle from another thread.
private final class MultiHandle: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer?

    init() {
        handle = curl_multi_init()
    }

    func wakeUp() {
        if let handle { curl_multi_wakeup(handle) }
    }

    deinit {
        if let handle { curl_multi_cleanup(handle) }
    }
}
