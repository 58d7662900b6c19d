@testable import TailorApp
@testable import TailorDomain
@testable import TailorStreams
@testable import TailorViews
import Testing

/// The stored form of a password: scrypt with its parameters and salt in it.
@Suite struct PasswordHasherTests {
    private let requester = PasswordQueue.Requester(client: nil)

    @Test func aHashVerifiesItsPasswordOnlyAndSaysItsParameters() async throws {
        let hasher = PasswordHasher(parameters: .init(n: 1 << 10, r: 8, p: 1))
        let stored = try await hasher.hash("correct horse", for: requester)
        #expect(stored.hasPrefix("scrypt$1024$8$1$"))
        #expect(stored.split(separator: "$").count == 6)
        #expect(try await hasher.verify("correct horse", against: stored, for: requester))
        #expect(!(try await hasher.verify("correct hors", against: stored, for: requester)))
        #expect(!(try await hasher.verify("correct horse", against: nil, for: requester)))
        #expect(!(try await hasher.verify("correct horse", against: "scrypt$broken", for: requester)))
        // Salted: the same password gives another hash.
        #expect(try await hasher.hash("correct horse", for: requester) != stored)
        // A hash keeps its own parameters: one made with others still verifies.
        let stronger = PasswordHasher(parameters: .init(n: 1 << 11, r: 8, p: 1))
        #expect(try await stronger.verify("correct horse", against: stored, for: requester))
    }

    /// A hash made before passwords were normalized, from the bytes as they
    /// were sent, still verifies with those bytes.
    @Test func aHashOfTheBytesAsSentStillVerifies() async throws {
        let hasher = PasswordHasher(parameters: .init(n: 1 << 10, r: 8, p: 1))
        let decomposed = "cafe\u{301} cre\u{300}me"
        let salt = [UInt8](repeating: 7, count: PasswordHasher.saltBytes)
        // The old hash: scrypt of the bytes as sent, in the same format.
        let normalizedHash = PasswordHasher.hash(decomposed, salt: salt, parameters: hasher.parameters)
        #expect(PasswordHasher.normalized(decomposed) == Array("caf\u{E9} cr\u{E8}me".utf8))
        #expect(try await hasher.verify("caf\u{E9} cr\u{E8}me", against: normalizedHash, for: requester))
        let asSent = PasswordHasher.hash(bytes: Array(decomposed.utf8), salt: salt, parameters: hasher.parameters)
        #expect(try await hasher.verify(decomposed, against: asSent, for: requester))
    }
}
