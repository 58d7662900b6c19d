/// What went wrong, as the server says it: the status, its `code` and its
/// `message` (`{"error": {"code", "message"}}`). A server that cannot be
/// reached is status 0, code `unreachable`.
public struct TailorError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    public let code: String
    public let message: String

    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    static func unreachable(_ cause: any Error) -> TailorError {
        TailorError(status: 0, code: "unreachable", message: "The server cannot be reached: \(cause)")
    }

    /// Worth trying again later: the server was not reached, or could not take the request now.
    var isPassing: Bool { status == 0 || status == 429 || status >= 500 }

    public var description: String { "\(status) \(code): \(message)" }
}
