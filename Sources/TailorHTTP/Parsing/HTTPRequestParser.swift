/// Reads a request head (request line and header fields, RFC 9112 §2–5) from the
/// bytes a connection has received so far.
///
/// It is fed the whole unconsumed input each time more arrives and remembers how
/// far it has already looked for the blank line that ends the head, so a head
/// that trickles in byte by byte is scanned once. Only when the head is complete
/// is it checked and split into fields, in place, with no `String` per line.
public struct HTTPRequestParser: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Longest request line: longer is 414.
        public var maxRequestLineBytes: Int
        /// Largest head, request line included: larger is 431.
        public var maxHeadBytes: Int
        /// Most header fields: more is 431.
        public var maxHeaderFields: Int

        public init(maxRequestLineBytes: Int = 8 * 1024, maxHeadBytes: Int = 64 * 1024, maxHeaderFields: Int = 100) {
            self.maxRequestLineBytes = maxRequestLineBytes
            self.maxHeadBytes = maxHeadBytes
            self.maxHeaderFields = maxHeaderFields
        }
    }

    public enum Result: Sendable {
        /// The head is not complete yet; feed more bytes.
        case needMoreData
        /// A complete head, and how many input bytes it took (blank line included).
        case head(HTTPRequestHead, length: Int)
        /// The input is not a request we accept; answer and close.
        case failure(HTTPParseError)
    }

    public let limits: Limits
    /// Bytes already searched for line ends.
    private var scanned = 0
    /// Where the request line starts, after the empty lines RFC 9112 §2.2 lets us skip.
    private var headStart = 0
    /// Where the current line starts.
    private var lineStart = 0
    private var requestLineEnded = false
    /// The last head's bytes and its fields' ranges, which its `HTTPHeaders`
    /// share. Once that request is answered and let go, the next head is
    /// written into the same storage: a connection's requests allocate none.
    private var headBytes: [UInt8] = []
    private var fieldRanges: [HTTPHeaders.Field] = []

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Heads up to this size keep their storage for the next one; a larger
    /// head's is given back (`shrink`), so that an idle connection does not
    /// hold what one large request needed.
    static let keptHeadBytes = 4096

    /// Gives back the storage of a head larger than `keptHeadBytes`; call
    /// once its request is answered.
    public mutating func shrink() {
        guard headBytes.capacity > Self.keptHeadBytes else { return }
        headBytes = []
        fieldRanges = []
    }

    /// Forgets a finished head; call after consuming its bytes.
    public mutating func reset() {
        scanned = 0
        headStart = 0
        lineStart = 0
        requestLineEnded = false
    }

    public mutating func parse(_ input: UnsafeRawBufferPointer) -> Result {
        var index = scanned
        while index < input.count {
            guard input[index] == UInt8(ascii: "\n") else {
                index += 1
                continue
            }
            // RFC 9112 §2.2 allows a bare LF; we don't: it lets a request smuggle a
            // line past a proxy that reads it differently.
            guard index > lineStart, input[index - 1] == UInt8(ascii: "\r") else {
                return .failure(.malformed("Lines must end with CRLF."))
            }
            let lineLength = index - 1 - lineStart
            if !requestLineEnded {
                if lineLength == 0 {
                    // Empty lines before the request line are ignored (they count
                    // toward the head's size limit, so they cannot go on forever).
                    headStart = index + 1
                } else {
                    if lineLength > limits.maxRequestLineBytes { return .failure(.requestLineTooLong) }
                    requestLineEnded = true
                }
            } else if lineLength == 0 {
                let end = index + 1
                if end > limits.maxHeadBytes { return .failure(.headersTooLarge) }
                scanned = end
                return interpretHead(UnsafeRawBufferPointer(rebasing: input[headStart..<end]), end: end)
            }
            lineStart = index + 1
            index += 1
        }
        scanned = index
        if !requestLineEnded, input.count - lineStart > limits.maxRequestLineBytes + 1 {
            return .failure(.requestLineTooLong)
        }
        if input.count > limits.maxHeadBytes {
            return .failure(.headersTooLarge)
        }
        return .needMoreData
    }

    // MARK: - Interpreting a complete head

    /// Fields a browser's request usually has, at most.
    static let usualFieldCount = 24

    private mutating func interpretHead(_ head: UnsafeRawBufferPointer, end: Int) -> Result {
        // Kept if no earlier request still holds it, else a new one (copy on write).
        headBytes.removeAll(keepingCapacity: true)
        // As typed bytes: appended in one copy, not byte by byte.
        headBytes.append(contentsOf: head.assumingMemoryBound(to: UInt8.self))
        let bytes = headBytes
        var lines = LineCursor(bytes: bytes)
        guard let requestLine = lines.next() else { return .failure(.malformed("The request line is missing.")) }

        // METHOD SP TARGET SP VERSION: exactly two spaces, found in place.
        let space = UInt8(ascii: " ")
        guard let firstSpace = requestLine.firstIndex(of: space),
              let secondSpace = requestLine[(firstSpace + 1)...].firstIndex(of: space),
              !requestLine[(secondSpace + 1)...].contains(space) else {
            return .failure(.malformed("The request line must be METHOD SP TARGET SP VERSION."))
        }
        let methodToken = requestLine[..<firstSpace]
        let targetBytes = requestLine[(firstSpace + 1)..<secondSpace]
        let version = requestLine[(secondSpace + 1)...]
        guard !methodToken.isEmpty, !targetBytes.isEmpty else {
            return .failure(.malformed("The request line must be METHOD SP TARGET SP VERSION."))
        }
        guard methodToken.allSatisfy(Self.isTokenByte) else { return .failure(.malformed("The method is not a token.")) }
        let minorVersion: Int
        if version.elementsEqual("HTTP/1.1".utf8) {
            minorVersion = 1
        } else if version.elementsEqual("HTTP/1.0".utf8) {
            minorVersion = 0
        } else if version.count == 8 && version.starts(with: "HTTP/".utf8) {
            return .failure(HTTPParseError(.versionNotSupported, "version_not_supported", "Only HTTP/1.0 and HTTP/1.1 are served."))
        } else {
            return .failure(.malformed("The HTTP version is malformed."))
        }
        let method = methodToken.withUnsafeBytes { HTTPMethod(token: $0) }
        let target: RequestTarget
        switch RequestTarget.parse(targetBytes, method: method) {
        case .success(let parsed): target = parsed
        case .failure(let error): return .failure(error)
        }

        fieldRanges.removeAll(keepingCapacity: true)
        // One allocation for a usual request's fields, not one per doubling.
        fieldRanges.reserveCapacity(Self.usualFieldCount)
        while let line = lines.next() {
            if line.isEmpty { break }
            guard fieldRanges.count < limits.maxHeaderFields else { return .failure(.tooManyHeaders) }
            guard !HTTPHeaders.isSpace(line[line.startIndex]) else {
                return .failure(.malformed("Folded header lines are not accepted."))
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                return .failure(.malformed("A header line has no field name."))
            }
            guard line[line.startIndex..<colon].allSatisfy(Self.isTokenByte) else {
                return .failure(.malformed("A header field name is not a token."))
            }
            var valueStart = colon + 1
            var valueEnd = line.endIndex
            while valueStart < valueEnd, HTTPHeaders.isSpace(line[valueStart]) { valueStart += 1 }
            while valueEnd > valueStart, HTTPHeaders.isSpace(line[valueEnd - 1]) { valueEnd -= 1 }
            guard line[valueStart..<valueEnd].allSatisfy(Self.isFieldValueByte) else {
                return .failure(.malformed("A header field value holds a control character."))
            }
            fieldRanges.append(HTTPHeaders.Field(
                nameStart: Int32(line.startIndex), nameEnd: Int32(colon),
                valueStart: Int32(valueStart), valueEnd: Int32(valueEnd)))
        }
        let headers = HTTPHeaders(head: bytes, fields: fieldRanges)

        if minorVersion == 1 && headers.count(of: "host") != 1 {
            return .failure(.malformed("An HTTP/1.1 request needs exactly one Host field."))
        }
        // Two values of a field that can hold one leave it open which one counts,
        // and two parts of a system may pick differently (RFC 9110 §5.3).
        for name in Self.singletonFields where headers.count(of: name) > 1 {
            return .failure(.malformed("The \(name) field appears more than once."))
        }
        let framing: HTTPRequestHead.BodyFraming
        switch Self.bodyFraming(headers, minorVersion: minorVersion) {
        case .success(let found): framing = found
        case .failure(let error): return .failure(error)
        }
        var expectsContinue = false
        if let expectation = headers.first("expect") {
            guard HTTPHeaders.equalIgnoringCase(headers.bytes(expectation), "100-continue".utf8) else {
                return .failure(HTTPParseError(.expectationFailed, "expectation_failed", "Only the expectation 100-continue is supported."))
            }
            expectsContinue = minorVersion == 1
        }
        let keepAlive = minorVersion == 1
            ? !headers.contains("connection", token: "close")
            : headers.contains("connection", token: "keep-alive")

        return .head(HTTPRequestHead(
            method: method, path: target.path, queryItems: target.queryItems, minorVersion: minorVersion,
            headers: headers, keepAlive: keepAlive, bodyFraming: framing,
            expectsContinue: expectsContinue), length: end)
    }

    static let singletonFields = ["host", "authorization", "content-type"]

    /// RFC 9112 §6.3: chunked wins if present but is only accepted alone; a length
    /// must be one decimal number; both at once is a smuggling attempt.
    private static func bodyFraming(_ headers: HTTPHeaders, minorVersion: Int) -> Swift.Result<HTTPRequestHead.BodyFraming, HTTPParseError> {
        let lengths = headers.matching("content-length")
        let encodings = headers.matching("transfer-encoding")
        if !encodings.isEmpty {
            guard lengths.isEmpty else {
                return .failure(.malformed("Content-Length and Transfer-Encoding must not both be sent."))
            }
            guard minorVersion == 1 else {
                return .failure(.malformed("Transfer-Encoding is not defined for HTTP/1.0."))
            }
            guard encodings.count == 1, HTTPHeaders.equalIgnoringCase(headers.bytes(encodings[0]), "chunked".utf8) else {
                return .failure(HTTPParseError(.notImplemented, "unsupported_transfer_encoding", "Only the chunked transfer coding is supported."))
            }
            return .success(.chunked)
        }
        guard let length = lengths.first else { return .success(.none) }
        guard lengths.count == 1 else { return .failure(.malformed("Content-Length is sent more than once.")) }
        let digits = headers.bytes(length)
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return .failure(.malformed("Content-Length is not a decimal number."))
        }
        var value = 0
        for digit in digits {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
            // Too large to count is too large to accept: the connection answers 413.
            if overflow1 || overflow2 { return .success(.length(Int.max)) }
            value = sum
        }
        return .success(value == 0 ? .none : .length(value))
    }

    /// tchar of RFC 9110 §5.6.2.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// field-vchar, SP or HTAB (RFC 9110 §5.5): no NUL, CR, LF or other control.
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != 0x7F || byte == UInt8(ascii: "\t")
    }
}

/// Walks CRLF-terminated lines of a complete head, yielding each without its CRLF.
private struct LineCursor {
    let bytes: [UInt8]
    var position = 0

    mutating func next() -> ArraySlice<UInt8>? {
        guard position < bytes.count else { return nil }
        var end = position
        while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
        let line = bytes[position..<max(end - 1, position)]
        position = end + 1
        return line
    }
}
