import TailorHTTP

/// Everything `tailor serve` is told: the HTTP server's address and limits, and
/// what the application serves.
public struct TailorConfiguration: Sendable {
    public var server = HTTPServerConfiguration()
    /// The folder served at `/`; nil serves no files.
    public var publicFolder: String? = "Public"

    public init() {}
}
