// libFuzzer entry for the request parser and the chunked body decoder; built and
// run by scripts/fuzz, not part of the package's targets.
//
// Besides not crashing, it checks one property: a head fed in two pieces parses
// exactly as the same bytes fed whole, the way a connection receives them.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let limits = HTTPRequestParser.Limits(maxRequestLineBytes: 512, maxHeadBytes: 2048, maxHeaderFields: 20)

    var whole = HTTPRequestParser(limits: limits)
    let wholeResult = whole.parse(input)

    var pieces = HTTPRequestParser(limits: limits)
    let split = size == 0 ? 0 : Int(data[0]) % (size + 1)
    var piecesResult = pieces.parse(UnsafeRawBufferPointer(rebasing: input[0..<split]))
    if case .needMoreData = piecesResult {
        piecesResult = pieces.parse(input)
    }
    switch (wholeResult, piecesResult) {
    case (.needMoreData, .needMoreData):
        break
    case (.head(let a, let lengthA), .head(let b, let lengthB)):
        precondition(lengthA == lengthB && lengthA <= size, "split parse found a different head end")
        precondition(a.path == b.path && a.queryItems == b.queryItems && a.method == b.method, "split parse read another target")
        precondition(a.bodyFraming == b.bodyFraming && a.keepAlive == b.keepAlive, "split parse framed differently")
        precondition(a.headers.count == b.headers.count, "split parse found other fields")
        _ = a.headers["host"]
        _ = a.headers.contains("connection", token: "close")
    case (.failure(let a), .failure(let b)):
        precondition(a == b, "split parse failed differently: \(a.code) vs \(b.code)")
    default:
        preconditionFailure("split parse disagrees with whole parse")
    }

    var decoder = ChunkedBodyDecoder(maxBodyBytes: 4096, maxTrailerBytes: 1024)
    let (progress, consumed) = decoder.decode(input)
    precondition(consumed <= size, "the decoder consumed more than it was given")
    if progress == .finished { precondition(decoder.body.count <= 4096, "a body over the limit") }

    _ = PercentDecoding.decode(input, plusIsSpace: true)
    // A query value read back from its encoding is the value.
    if let items = QueryString.items(ArraySlice(input)) {
        for item in items {
            let encoded = Array(("v=" + PercentEncoding.queryValue(item.value)).utf8)
            precondition(QueryString.items(encoded[...]) == [QueryItem(name: "v", value: item.value)], "a query value did not round-trip")
        }
    }
    return 0
}
