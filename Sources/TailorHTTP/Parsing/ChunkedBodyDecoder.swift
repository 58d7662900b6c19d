/// Decodes a `Transfer-Encoding: chunked` body (RFC 9112 §7.1) as its bytes arrive.
///
/// Feed it the unconsumed input; it appends the body's data, says how much input
/// it used, and keeps its place in between. Extensions are skipped and trailer
/// fields discarded.
public struct ChunkedBodyDecoder: Sendable {
    public enum Progress: Equatable, Sendable {
        case needMoreData
        case finished
        case failure(HTTPParseError)
    }

    private enum State: Sendable {
        case size
        case sizeExtension
        case sizeLineFeed
        case data(remaining: Int)
        case dataCarriageReturn
        case dataLineFeed
        case trailerLineStart
        case trailerLine
        case trailerLineFeed(empty: Bool)
        case done
    }

    /// A size line (digits and extensions) longer than this is refused.
    static let maxSizeLineBytes = 1024

    public let maxBodyBytes: Int
    public let maxTrailerBytes: Int
    private var state = State.size
    private var size = 0
    private var sizeDigits = 0
    private var lineBytes = 0
    private var trailerBytes = 0
    public private(set) var body: [UInt8] = []

    public init(maxBodyBytes: Int, maxTrailerBytes: Int = 64 * 1024) {
        self.maxBodyBytes = maxBodyBytes
        self.maxTrailerBytes = maxTrailerBytes
    }

    /// Decodes from `input`; returns the progress and how many input bytes were used.
    public mutating func decode(_ input: UnsafeRawBufferPointer) -> (Progress, consumed: Int) {
        var index = 0
        while index < input.count {
            let byte = input[index]
            switch state {
            case .size:
                if let digit = PercentDecoding.hexValue(byte) {
                    sizeDigits += 1
                    // 15 hex digits already exceed any body limit we would accept.
                    guard sizeDigits <= 15 else { return (.failure(.bodyTooLarge), index) }
                    size = size << 4 | Int(digit)
                } else if sizeDigits == 0 {
                    return (.failure(.malformed("A chunk size must start with a hex digit.")), index)
                } else if byte == UInt8(ascii: "\r") {
                    state = .sizeLineFeed
                } else if byte == UInt8(ascii: ";") || HTTPHeaders.isSpace(byte) {
                    state = .sizeExtension
                } else {
                    return (.failure(.malformed("A chunk size is not hexadecimal.")), index)
                }
                index += 1
                lineBytes += 1
            case .sizeExtension:
                if byte == UInt8(ascii: "\r") {
                    state = .sizeLineFeed
                } else if byte == UInt8(ascii: "\n") || !HTTPRequestParser.isFieldValueByte(byte) {
                    return (.failure(.malformed("A chunk extension holds a control character.")), index)
                }
                index += 1
                lineBytes += 1
            case .sizeLineFeed:
                guard byte == UInt8(ascii: "\n") else { return (.failure(.malformed("A chunk size line must end with CRLF.")), index) }
                index += 1
                guard lineBytes <= Self.maxSizeLineBytes else { return (.failure(.malformed("A chunk size line is too long.")), index) }
                if size == 0 {
                    state = .trailerLineStart
                } else {
                    guard size <= maxBodyBytes - body.count else { return (.failure(.bodyTooLarge), index) }
                    state = .data(remaining: size)
                }
                size = 0
                sizeDigits = 0
                lineBytes = 0
            case .data(let remaining):
                let take = min(remaining, input.count - index)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<(index + take)]))
                index += take
                state = remaining == take ? .dataCarriageReturn : .data(remaining: remaining - take)
            case .dataCarriageReturn:
                guard byte == UInt8(ascii: "\r") else { return (.failure(.malformed("Chunk data must end with CRLF.")), index) }
                state = .dataLineFeed
                index += 1
            case .dataLineFeed:
                guard byte == UInt8(ascii: "\n") else { return (.failure(.malformed("Chunk data must end with CRLF.")), index) }
                state = .size
                index += 1
            case .trailerLineStart:
                state = byte == UInt8(ascii: "\r") ? .trailerLineFeed(empty: true) : .trailerLine
                index += 1
                trailerBytes += 1
            case .trailerLine:
                if byte == UInt8(ascii: "\r") { state = .trailerLineFeed(empty: false) }
                index += 1
                trailerBytes += 1
                guard trailerBytes <= maxTrailerBytes else { return (.failure(.headersTooLarge), index) }
            case .trailerLineFeed(let empty):
                guard byte == UInt8(ascii: "\n") else { return (.failure(.malformed("A trailer line must end with CRLF.")), index) }
                index += 1
                if empty {
                    state = .done
                    return (.finished, index)
                }
                state = .trailerLineStart
            case .done:
                return (.finished, index)
            }
        }
        if case .done = state { return (.finished, index) }
        return (.needMoreData, index)
    }
}
