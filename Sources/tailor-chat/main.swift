// A small terminal chat on TailorClient's public API, as an app would use it:
//
//   tailor-chat URL TOKEN list            the chat list, then its changes
//   tailor-chat URL TOKEN chat CONTACT    the chat with CONTACT, live; each line typed is sent
//
// With TAILOR_CLIENT_STORE=FOLDER it keeps what it received there, and opens
// with it before any request.
import Foundation
import TailorClient

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, let baseURL = URL(string: arguments[0]) else {
    FileHandle.standardError.write(Data("usage: tailor-chat URL TOKEN list | chat CONTACT\n".utf8))
    exit(2)
}
let store = ProcessInfo.processInfo.environment["TAILOR_CLIENT_STORE"].map { ClientStore.directory(URL(fileURLWithPath: $0)) } ?? .none
let client = TailorClient(baseURL: baseURL, token: arguments[1], store: store)

/// A line out at once, also into a pipe: the output is a live view.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func show(_ list: ChatList) {
    say("— \(list.title) (\(list.unreadTotal) unread)")
    for item in list.items {
        let unread = item.unreadMessageCount > 0 ? " [\(item.unreadMessageCount)]" : ""
        say("\(item.contact)\(unread): \(item.message)  \(item.lastMessageDate)")
    }
}

/// Lines typed, read on a thread of their own: reading blocks.
func typedLines() -> AsyncStream<String> {
    AsyncStream { continuation in
        Thread.detachNewThread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
    }
}

do {
    switch (arguments[2], arguments.count) {
    case ("list", _):
        for try await list in client.updates(.chatList) { show(list) }
    case ("chat", 4):
        let chat = try await client.openChat(with: arguments[3])
        let watching = Task {
            var shown = Set<String>()
            for try await screen in client.updates(.chat(chat.id)) {
                for message in screen.messages where shown.insert(message.id).inserted {
                    say("\(message.time) \(message.senderName): \(message.text)")
                }
                if screen.unreadMessageCount > 0 { try await client.markRead(chat.id) }
            }
        }
        for await line in typedLines() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            do {
                _ = try await client.send(line, to: chat.id)
            } catch let error as TailorError where error.status == 0 || error.status >= 500 {
                say("(waiting: it goes when the server answers)")
            }
        }
        watching.cancel()
    default:
        FileHandle.standardError.write(Data("usage: tailor-chat URL TOKEN list | chat CONTACT\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("tailor-chat: \(error)\n".utf8))
    exit(1)
}
