import Foundation

/// Where a client keeps what it received: `.directory(url)` on disk, so that
/// an app opens with its view models before any request, or `.none`.
public enum ClientStore: Sendable {
    case none
    case directory(URL)
}

/// The store on disk: one file per topic with its last value and the feed
/// position it was current at, and the outbox, each written whole to a
/// temporary file and renamed over the old one, so that a crash leaves the
/// old value or the new one, never half of one.
///
/// It is one person's: the folder is readable by its owner alone (0700, its
/// files 0600), and it names the token it was filled with (by a digest):
/// opened with another token, or told that the token is no longer valid, it
/// is emptied first, so that nothing of one person is shown to, or sent as,
/// another.
struct DiskStore: Sendable {
    struct Kept: Codable, Sendable {
        let value: JSONValue
        let position: Int64?
    }

    let folder: URL?

    init(_ store: ClientStore, token: String?) {
        guard case .directory(let url) = store else {
            folder = nil
            return
        }
        do {
            try DiskStore(folder: url).claim(for: token)
            folder = url
        } catch {
            // A folder that cannot be made this token's, readable by its
            // owner alone, keeps nothing: the client goes on without a store.
            folder = nil
        }
    }

    private init(folder: URL) {
        self.folder = folder
    }

    /// Makes the folder the token's: readable by its owner alone, and emptied
    /// first when another token (or none yet) filled it.
    private func claim(for token: String?) throws {
        guard let folder else { return }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
        let owner = folder.appendingPathComponent("owner.json")
        let holder = Self.digest(of: token)
        guard read(String.self, from: owner) != holder else { return }
        try clear()
        try write(holder, to: owner)
    }

    /// A digest of `token` (64-bit FNV-1a, in hex): it tells two tokens apart,
    /// and a token of 256 random bits cannot be found from it.
    static func digest(of token: String?) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (token ?? "").utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    func view(_ topic: String) -> Kept? {
        read(Kept.self, from: file(forTopic: topic))
    }

    func keep(_ value: JSONValue, position: Int64?, topic: String) throws {
        try write(Kept(value: value, position: position), to: file(forTopic: topic))
    }

    var outbox: [OutboxEntry] {
        read([OutboxEntry].self, from: folder?.appendingPathComponent("outbox.json")) ?? []
    }

    func keepOutbox(_ entries: [OutboxEntry]) throws {
        try write(entries, to: folder?.appendingPathComponent("outbox.json"))
    }

    /// Forgets everything: the session ended.
    func clear() throws {
        guard let folder else { return }
        for name in ["views", "outbox.json"] where FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) {
            try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    private func file(forTopic topic: String) -> URL? {
        folder?.appendingPathComponent("views").appendingPathComponent(topic.addingPercentEncodingForPath() + ".json")
    }

    /// An unreadable file (another version's, or damaged) is as good as none.
    private func read<Value: Decodable>(_ type: Value.Type, from file: URL?) -> Value? {
        guard let file, let data = FileManager.default.contents(atPath: file.path) else { return nil }
        // Undecodable: written by another version, or damaged; the server's copy replaces it.
        return try? JSONDecoder().decode(type, from: data)
    }

    private func write(_ value: some Encodable, to file: URL?) throws {
        guard let file else { return }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try JSONEncoder().encode(value).write(to: file, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    }
}
