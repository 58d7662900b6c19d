import Glibc
import TailorLoop

/// A time zone from the system's tz database: the offsets of a TZif file
/// (RFC 8536) and, past its last transition, the POSIX rule in its footer.
///
/// Read by hand so that the server needs neither Foundation's time zones nor the
/// ICU data they bring, which would add megabytes to every process.
package struct TimeZoneRules: Sendable {
    package let name: String
    /// UTC seconds at which the offset changes, ascending.
    private let transitions: [Int64]
    /// The offset (seconds east of UTC) from each transition on.
    private let offsets: [Int32]
    /// The offset before the first transition.
    private let initialOffset: Int32
    /// The rule after the last transition.
    private let rule: PosixTimeZoneRule?

    package static let utc = TimeZoneRules(name: "UTC", transitions: [], offsets: [], initialOffset: 0, rule: nil)

    /// The zone named `name` (`Europe/Berlin`), or nil if there is no such zone.
    package static func named(_ name: String, folder: String = "/usr/share/zoneinfo") -> TimeZoneRules? {
        if ["UTC", "Etc/UTC", "GMT", "Etc/GMT", "Z"].contains(name) { return .utc }
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || "/_+-".utf8.contains(byte)
        }
        guard allowed, !name.isEmpty, !name.hasPrefix("/"), !name.contains(".."), let bytes = SmallFile.read(folder + "/" + name) else { return nil }
        return parse(bytes, name: name)
    }

    /// The offset in seconds east of UTC at the UTC instant `seconds`.
    package func offset(atUTC seconds: Int64) -> Int32 {
        guard let first = transitions.first, seconds >= first else { return transitions.isEmpty ? (rule?.offset(atUTC: seconds) ?? initialOffset) : initialOffset }
        if seconds >= transitions.last!, let rule { return rule.offset(atUTC: seconds) }
        // The last transition at or before `seconds`.
        var low = 0, high = transitions.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if transitions[middle] <= seconds { low = middle } else { high = middle - 1 }
        }
        return offsets[low]
    }

    // MARK: - TZif

    package static func parse(_ bytes: [UInt8], name: String) -> TimeZoneRules? {
        var reader = ByteReader(bytes: bytes)
        guard let header = reader.header() else { return nil }
        // Version 1 data, with 32-bit times, comes first; skip it for the 64-bit block.
        if header.version >= 2 {
            reader.skip(header.dataLength(timeSize: 4))
            guard let second = reader.header() else { return nil }
            return read(&reader, header: second, timeSize: 8, name: name)
        }
        return read(&reader, header: header, timeSize: 4, name: name)
    }

    private static func read(_ reader: inout ByteReader, header: ByteReader.Header, timeSize: Int, name: String) -> TimeZoneRules? {
        var times: [Int64] = []
        for _ in 0..<header.timeCount {
            guard let time = timeSize == 8 ? reader.int64() : reader.int32().map(Int64.init) else { return nil }
            times.append(time)
        }
        var indices: [Int] = []
        for _ in 0..<header.timeCount {
            guard let index = reader.byte() else { return nil }
            indices.append(Int(index))
        }
        var typeOffsets: [Int32] = []
        for _ in 0..<header.typeCount {
            guard let offset = reader.int32(), reader.byte() != nil, reader.byte() != nil else { return nil }
            typeOffsets.append(offset)
        }
        guard !typeOffsets.isEmpty, indices.allSatisfy({ $0 < typeOffsets.count }) else { return nil }
        reader.skip(header.characterCount + header.leapCount * (timeSize + 4) + header.standardCount + header.utcCount)
        var rule: PosixTimeZoneRule?
        if header.version >= 2, let footer = reader.footer() {
            rule = PosixTimeZoneRule(footer)
        }
        return TimeZoneRules(name: name, transitions: times, offsets: indices.map { typeOffsets[$0] },
                             initialOffset: typeOffsets[0], rule: rule)
    }
}

/// Big-endian fields of a TZif file.
private struct ByteReader {
    struct Header {
        let version: Int
        let utcCount, standardCount, leapCount, timeCount, typeCount, characterCount: Int

        func dataLength(timeSize: Int) -> Int {
            timeCount * timeSize + timeCount + typeCount * 6 + characterCount + leapCount * (timeSize + 4) + standardCount + utcCount
        }
    }

    let bytes: [UInt8]
    var position = 0

    mutating func header() -> Header? {
        guard position + 44 <= bytes.count, bytes[position..<(position + 4)].elementsEqual("TZif".utf8) else { return nil }
        let version = bytes[position + 4] == 0 ? 1 : Int(bytes[position + 4] - UInt8(ascii: "0"))
        position += 20
        var counts: [Int] = []
        for _ in 0..<6 { counts.append(Int(int32()!)) }
        return Header(version: version, utcCount: counts[0], standardCount: counts[1], leapCount: counts[2],
                      timeCount: counts[3], typeCount: counts[4], characterCount: counts[5])
    }

    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func int32() -> Int32? {
        guard position + 4 <= bytes.count else { return nil }
        defer { position += 4 }
        return bytes[position..<(position + 4)].reduce(0) { $0 << 8 | Int32($1) }
    }

    mutating func int64() -> Int64? {
        guard position + 8 <= bytes.count else { return nil }
        defer { position += 8 }
        return bytes[position..<(position + 8)].reduce(0) { $0 << 8 | Int64($1) }
    }

    mutating func skip(_ count: Int) {
        position = min(position + count, bytes.count)
    }

    /// The POSIX TZ string between the two newlines that end a version 2+ file.
    mutating func footer() -> String? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\n") else { return nil }
        let rest = bytes[(position + 1)...]
        guard let end = rest.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return String(decoding: rest[..<end], as: UTF8.self)
    }
}
