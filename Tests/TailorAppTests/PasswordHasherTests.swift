import Testing
@testable import TailorApp

/// The stored form of a password: scrypt with its parameters and salt in it.
@Suite struct PasswordHasherTests {
    @Test func aHashVerifiesItsPasswordOnlyAndSaysItsParameters() async {
        let hasher = PasswordHasher(parameters: .init(n: 1 << 10, r: 8, p: 1))
        let stored = await hasher.hash("correct horse")
        #expect(stored.hasPrefix("scrypt$1024$8$1$"))
        #expect(stored.split(separator: "$").count == 6)
        #expect(await hasher.verify("correct horse", against: stored))
        #expect(!(await hasher.verify("correct hors", against: stored)))
        #expect(!(await hasher.verify("correct horse", against: nil)))
        #expect(!(await hasher.verify("correct horse", against: "scrypt$broken")))
        // Salted: the same password gives another hash.
        #expect(await hasher.hash("correct horse") != stored)
        // A hash keeps its own parameters: one made with others still verifies.
        let stronger = PasswordHasher(parameters: .init(n: 1 << 11, r: 8, p: 1))
        #expect(await stronger.verify("correct horse", against: stored))
    }
}
