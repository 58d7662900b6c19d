import Foundation
import TailorTestSupport

/// What a client of a stream with `patch=json` holds: each topic's view model,
/// from its whole events and the patches that follow them, checked the way a
/// client checks them (a patch names the id of the event it applies to).
struct PatchedViews {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Per topic (`chat:7`, `orders`…): the view model and the id of the event that brought it.
    private(set) var held: [String: (id: String, viewModel: Any)] = [:]
    private(set) var patchesApplied = 0
    private(set) var wholeEvents = 0

    /// Takes one event of the stream; notifications are passed over.
    mutating func take(_ event: SSEClient.Event) throws {
        guard let id = event.id else { throw Failure(description: "an event without an id") }
        if event.name.hasSuffix(".patch") {
            let data = event.json
            guard let topic = data["topic"] as? String, let base = data["base"] as? Int, let operations = data["patch"] as? [[String: Any]] else {
                throw Failure(description: "a patch without topic, base or operations: \(event.data)")
            }
            guard let current = held[topic] else { throw Failure(description: "a patch of \(topic), which has no view model yet") }
            guard current.id == String(base) else { throw Failure(description: "a patch of \(topic) for \(base), but \(current.id) is held") }
            held[topic] = (id, try JSONPatchApplier.apply(operations, to: current.viewModel))
            patchesApplied += 1
        } else if event.name != "notification" {
            let viewModel = try JSONSerialization.jsonObject(with: Data(event.data.utf8))
            let topic = event.name == "chat" || event.name == "order" ? "\(event.name):\(event.json["id"] as? String ?? "?")" : event.name
            held[topic] = (id, viewModel)
            wholeEvents += 1
        }
    }

    /// The view model held for `topic`, as JSON text with sorted keys.
    func canonical(_ topic: String) throws -> String {
        guard let viewModel = held[topic]?.viewModel else { throw Failure(description: "nothing held for \(topic)") }
        return try Self.canonical(viewModel)
    }

    static func canonical(_ value: Any) throws -> String {
        try JSONPatchApplier.canonical(value)
    }
}
