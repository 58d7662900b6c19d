import CLibCurl
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
/// own (`push`) so that neither a loop nor the writer ever waits for one. A
/// batch's pushes go side by side (libcurl's multi interface), each bounded
/// by `timeout`: a push service that never answers holds up nothing but its
/// own pushes, and those for at most that long.
public final class PushClient: Sendable {
    private let thread = SerialThread(name: "push")
    /// Certificate authorities to trust instead of the system's (a test's push service).
    private let caFile: String?
    private let timeoutMilliseconds: Int

    /// libcurl's global set-up, once per process: it is not safe to run twice at once.
    private static let libraryReady: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    public init(caFile: String?, timeoutSeconds: Double) {
        _ = Self.libraryReady
        self.caFile = caFile
        timeoutMilliseconds = Int(timeoutSeconds * 1000)
    }

    /// Makes each push (its encryption too runs on the push thread) and sends
    /// those made side by side; answers each, in their order.
    public func send(_ pushes: [@Sendable () throws -> PushRequest]) async -> [PushResponse] {
        await withCheckedContinuation { continuation in
            thread.async { [self] in
                let made = pushes.map { make in Result { try make() } }
                let requests = made.compactMap { made -> PushRequest? in if case .success(let request) = made { request } else { nil } }
                var sent = transfer(requests).makeIterator()
                continuation.resume(returning: made.map { result in
                    switch result {
                    case .success: sent.next() ?? .failed("not sent")
                    case .failure(let error): .unmade(String(describing: error))
                    }
                })
            }
        }
    }

    private func transfer(_ requests: [PushRequest]) -> [PushResponse] {
        guard let multi = curl_multi_init() else { return requests.map { _ in .failed("libcurl could not start") } }
        defer { curl_multi_cleanup(multi) }
        var transfers: [(handle: UnsafeMutableRawPointer, fields: UnsafeMutablePointer<curl_slist>?)] = []
        var responses = [PushResponse](repeating: .failed("not sent"), count: requests.count)
        for request in requests {
            guard let handle = curl_easy_init() else { break }
            let fields = request.fields.reduce(nil as UnsafeMutablePointer<curl_slist>?) { curl_slist_append($0, $1) }
            prepare(handle, for: request, fields: fields)
            curl_multi_add_handle(multi, handle)
            transfers.append((handle, fields))
        }
        var running: Int32 = 1
        while running > 0 {
            guard curl_multi_perform(multi, &running) == CURLM_OK else { break }
            if running > 0 { curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
        // Each transfer's own result: why one that has no status failed.
        var results: [UnsafeMutableRawPointer: CURLcode] = [:]
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            if message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle {
                results[handle] = message.pointee.data.result
            }
        }
        for (index, transfer) in transfers.enumerated() {
            responses[index] = response(of: transfer.handle, result: results[transfer.handle])
            curl_multi_remove_handle(multi, transfer.handle)
            curl_easy_cleanup(transfer.handle)
            curl_slist_free_all(transfer.fields)
        }
        return responses
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

    private func response(of handle: UnsafeMutableRawPointer, result: CURLcode?) -> PushResponse {
        var status = 0
        tailor_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        guard status > 0 else {
            return .failed(result.map { String(cString: curl_easy_strerror($0)) } ?? "no answer")
        }
        var header: UnsafeMutablePointer<curl_header>?
        var retryAfter: Int?
        if curl_easy_header(handle, "Retry-After", 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK, let value = header?.pointee.value {
            retryAfter = Int(String(cString: value).trimmingPrefix(while: { $0 == " " }))
        }
        return .answered(status: status, retryAfter: retryAfter)
    }
}
