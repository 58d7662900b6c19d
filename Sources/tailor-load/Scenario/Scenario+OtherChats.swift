extension Scenario {
    /// Gives every user `chatsPerUser - 1` chats besides their partner's, as
    /// people have: with contacts of their own (accounts made for it, shared
    /// by all users), one message each, written before the measured part.
    /// The messages of the run go to the partner's chat: a few chats are
    /// active, the rest only fill the lists.
    func openOtherChats() async throws {
        let others = settings.chatsPerUser - 1
        guard others > 0 else { return }
        let names = (0..<others).map { "chat\(settings.seed % 1_000_000)_\($0)" }
        try await forEachUser { user in
            for index in stride(from: user.index, to: names.count, by: self.users.count) {
                let answer = try await user.connection.send("POST", "/api/users", token: nil, json: #"{"name":"\#(names[index])"}"#,
                                                            timeout: self.settings.requestTimeout)
                guard answer.status == 201 else { throw ScenarioError("sign up \(names[index]): \(answer.status) \(answer.text)") }
            }
        }
        try await forEachUser { user in
            for name in names {
                let chat = try await user.connection.send("POST", "/api/chats", token: user.token, json: #"{"contact":"\#(name)"}"#,
                                                          timeout: self.settings.requestTimeout)
                guard chat.status == 201, let id = chat.field("id") else { throw ScenarioError("open a chat with \(name): \(chat.status) \(chat.text)") }
                let sent = try await user.connection.send("POST", "/api/chats/\(id)/messages", token: user.token,
                                                          json: #"{"text":"hello from \#(user.name)"}"#, timeout: self.settings.requestTimeout)
                guard sent.status == 201 else { throw ScenarioError("write to \(name): \(sent.status) \(sent.text)") }
            }
        }
    }
}
