@testable import TailorStore
import Testing

/// What servers say on the bus, written and read back as values.
@Suite struct BusWireTests {
    private let commit = AnnouncedCommit(position: 40, origin: "k3j9", users: [2, 17], carried: "a body with spaces")

    @Test func aCommitToEveryoneReadsAsServersOfTheEarlierVersionReadIt() {
        #expect(BusWire.toEveryone(commit) == "40 k3j9 2,17 a body with spaces")
        let anyone = AnnouncedCommit(position: 41, origin: "k3j9", users: nil, carried: nil)
        #expect(BusWire.toEveryone(anyone) == "41 k3j9 *")
        let heard = BusWire.parse(BusWire.toEveryone(anyone))
        #expect(heard.count == 1 && heard[0].position == 41 && heard[0].users == nil && heard[0].body == nil)
    }

    @Test func aCommitToOneServerTellsTheStubsBeforeItThenItself() {
        let told = [CommitStub(position: 38, users: [5]), CommitStub(position: 39, users: [6, 7])]
        let message = BusWire.toOne(commit, told: told)
        #expect(message == "e 40 k3j9 2,17 38:5;39:6,7 a body with spaces")
        let heard = BusWire.parse(message)
        #expect(heard.map(\.position) == [38, 39, 40])
        #expect(heard.map(\.users) == [[5], [6, 7], [2, 17]])
        #expect(heard.map { $0.body.map(String.init) } == [nil, nil, "a body with spaces"])
        #expect(heard.allSatisfy { $0.origin == "k3j9" })
        #expect(BusWire.parse(BusWire.toOne(commit, told: [])).map(\.position) == [40])
    }

    @Test func stubsGoTogether() {
        let message = BusWire.stubs(from: "k3j9", [CommitStub(position: 7, users: [1]), CommitStub(position: 9, users: [1, 2])])
        #expect(message == "s k3j9 7:1;9:1,2")
        #expect(BusWire.parse(message).map(\.position) == [7, 9])
        #expect(BusWire.parse(message).map(\.body).allSatisfy { $0 == nil })
    }

    @Test func whomAServerServes() {
        let added = BusWire.parseInterest(BusWire.interest(of: "k3j9", [4, 8], replacing: false))
        #expect(added?.origin == "k3j9" && added?.users == [4, 8] && added?.replacing == false)
        let none = BusWire.parseInterest(BusWire.interest(of: "k3j9", [], replacing: true))
        #expect(none?.users == [] && none?.replacing == true)
    }

    @Test func whatSaysNothingReadableTellsOfNothing() {
        for garbled in ["garbled", "e 40 k3j9", "e x k3j9 1 - body", "s k3j9", "40 k3j9 1,x", ""] {
            #expect(BusWire.parse(garbled).isEmpty, "\(garbled)")
        }
        #expect(BusWire.parse("s k3j9 7:1;bad;9:2;1:2:3;8:1,,2").map(\.position) == [7, 9])
        #expect(BusWire.parse("s k3j9 7:").map(\.users) == [[]])
        #expect(BusWire.parse("s k3j9 99999999999999999999:1").isEmpty)
        #expect(BusWire.parseInterest("? k3j9 1") == nil)
    }
}
