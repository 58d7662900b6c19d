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
struct DiskStore: Sendable {
    struct Kept: Codable, Sendable {
        let value: JSONValue
        let position: Int64?
    }

    let folder: URL?

    init(_ store: ClientStore) {
        switch store {
        case .none: folder = nil
        case .directory(let url): folder = url
        }
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
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(value).write(to: file, options: .atomic)
    }
}
