import Synchronization
import TailorStore

/// The rows of each page of each user's chat list as last written, kept so
/// that a rebuilt list writes only the rows that changed: a message moves one
/// chat of a hundred to the top and changes its row, and the other rows are
/// copied as they were, neither built nor written again.
///
/// A row is taken again only when all it shows is as it was: the chat's
/// summary (contact, last message, unread count, whether presence is shown),
/// the contact's status, and the day its date was written on (a date reads
/// "14:05" today and "Yesterday" tomorrow). Memory is bounded by two
/// generations, as `MessagePages`.
package final class ChatListRows: Sendable {
    package struct Page: Hashable, Sendable {
        package let viewer: Int
        package let offset: Int
    }

    /// One row as written, with what it was written from; a class, since a
    /// row passes through every build of its page and is copied by reference.
    package final class Row: Sendable {
        package let summary: ChatSummary
        /// The kept chat's state it was written from, when it was (`KeptChat.stamp`).
        package let stamp: Int?
        package let status: ContactStatusViewModel?
        /// The local midnight that ended the day it was written on.
        package let day: Int
        package let bytes: [UInt8]
        /// Where its values lie in `bytes`, for patches that name them;
        /// shared by every list that places the row.
        package let written: JSONLayout.Written

        package init(summary: ChatSummary, stamp: Int?, status: ContactStatusViewModel?, day: Int, bytes: [UInt8], written: JSONLayout.Written) {
            self.summary = summary
            self.stamp = stamp
            self.status = status
            self.day = day
            self.bytes = bytes
            self.written = written
        }

        package func shows(_ summary: ChatSummary, _ status: ContactStatusViewModel?, day: Int) -> Bool {
            self.day == day && self.status == status && self.summary == summary
        }

        /// This row, as written from the chat's state `stamp`: a change that
        /// left the row as it was (the user's own last seen, which only the
        /// other member's row shows) gives the row the new stamp, so that the
        /// next build finds it unchanged without making its summary again.
        package func stamped(_ stamp: Int?) -> Row {
            stamp == self.stamp ? self : Row(summary: summary, stamp: stamp, status: status, day: day, bytes: bytes, written: written)
        }
    }

    /// Bytes of rows kept at most, over both generations.
    package static let byteBudget = 16 * 1024 * 1024

    private struct Generations {
        var newer: [Page: [Int: Row]] = [:]
        var older: [Page: [Int: Row]] = [:]
        var newerBytes = 0
    }

    /// Shared: each lane builds its users' lists on its own loop, and a GET on any loop.
    private let generations = Mutex(Generations())

    package init() {}

    /// The rows of `page` as last written, by chat id.
    package func rows(of page: Page) -> [Int: Row] {
        generations.withLock { $0.newer[page] ?? $0.older[page] ?? [:] }
    }

    package func keep(_ rows: [Int: Row], of page: Page) {
        let bytes = rows.values.reduce(0) { $0 + $1.bytes.count + $1.written.layout.byteCount }
        generations.withLock { generations in
            if generations.newerBytes >= Self.byteBudget / 2 {
                generations.older = generations.newer
                generations.newer = [:]
                generations.newerBytes = 0
            }
            generations.newerBytes += bytes
            generations.newer[page] = rows
        }
    }
}

/// A chat list's rows, each written once (or taken from the rows kept), in
/// the list's order.
package struct ChatListRowList: JSONWritable, Equatable, Sendable {
    private var rows: [ChatListRows.Row] = []

    package init(capacity: Int) {
        rows.reserveCapacity(capacity)
    }

    package mutating func append(_ row: ChatListRows.Row) {
        rows.append(row)
    }

    package func write(to json: inout JSONWriter) {
        json.array(count: rows.count) { json, index in
            let row = rows[index]
            row.bytes.withUnsafeBytes { json.fragment($0, layout: { row.written }) }
        }
    }

    package var estimatedJSONSize: Int { rows.reduce(2) { $0 + $1.bytes.count + 1 } }

    package static func == (a: ChatListRowList, b: ChatListRowList) -> Bool {
        a.rows.map(\.bytes) == b.rows.map(\.bytes)
    }
}
