@testable import TailorViews
import Testing

extension ChatDirectoryTests {
    /// A server that passes over entries keeps the users it serves, with
    /// every chat of theirs, and not their contacts: a contact kept there
    /// would be let go at the first entry of theirs passed over, and read
    /// whole again at the next one applied. New users and chats are kept
    /// all the same, for a server where they come to be served.
    @Test func aContactNotServedHereIsNotKeptNorReadAgain() throws {
        let directory = ChatDirectory()
        let writer = try Writer(path: folder.appendingPathComponent("served.sqlite").path, directory: directory)
        defer { writer.database.close() }
        let ann = try writer.signUp("ann")
        let bob = try writer.signUp("bob")
        let cid = try writer.signUp("cid")
        let annAndBob = try writer.open(ann, with: bob.name)
        let bobAndCid = try writer.open(bob, with: cid.name)
        writer.keeps = { $0 == ann.id }
        #expect(directory.summaries(of: bob.id) != nil && directory.summaries(of: cid.id) != nil, "new users are kept everywhere")

        // An entry of bob and cid alone is passed over here: what is kept of them is let go.
        directory.letGo([bob.id, cid.id])
        try writer.send("hello", from: bob, in: annAndBob)
        try writer.send("and back", from: ann, in: annAndBob)
        #expect(directory.summaries(of: bob.id) == nil, "bob, not served here, was kept again")
        #expect(directory.figures.usersReadAgain == 0)
        try expectKept(ann, in: writer)
        #expect(directory.screen(of: annAndBob.id, for: ann.id)?.contact.id == bob.id)
        #expect(directory.chat(bobAndCid.id) == nil, "a chat no kept user has was kept")

        // Once bob is served here, the next entry of his keeps him with all his chats.
        writer.keeps = { [ann.id, bob.id].contains($0) }
        try writer.read(annAndBob, by: bob)
        try expectKept(bob, in: writer)
        #expect(directory.figures.usersReadAgain == 1)
    }
}
