import HubKernel
import HubTestSupport
import Testing

@Suite("Identity passwords", .timeLimit(.minutes(3)))
struct IdentityPasswordTests {
    let hasher = PasswordHasher(parameters: .minimum)
    let password = "correct horse battery"

    @Test("a hash verifies its password and no other")
    func roundTrip() async throws {
        let stored = try await hasher.hash(password)
        #expect(stored.hasPrefix("$argon2id$v=19$"))
        #expect(try await hasher.verify(password, against: stored))
        #expect(try await !hasher.verify(password + "!", against: stored))
        #expect(try await !hasher.verify("", against: stored))
        #expect(try await !hasher.verify(password, against: "not a hash"))
    }

    @Test("two hashes of one password differ (random salt)")
    func salted() async throws {
        #expect(try await hasher.hash(password) != hasher.hash(password))
    }

    @Test("a hash made with other parameters needs a rehash; one with the current ones does not")
    func rehash() async throws {
        let stronger = PasswordHasher(parameters: .init(operations: 2, memoryBytes: 64 * 1024))
        let old = try await hasher.hash(password)
        #expect(!hasher.needsRehash(old))
        #expect(stronger.needsRehash(old))
        #expect(try await stronger.verify(password, against: old), "old hashes keep verifying")
        #expect(!stronger.needsRehash(try await stronger.hash(password)))
    }

    @Test("the dummy verification never succeeds")
    func dummy() async throws {
        #expect(try await !hasher.verifyAgainstDummy(password))
        #expect(try await !hasher.verifyAgainstDummy(""))
    }

    @Test("production parameters are libsodium's interactive argon2id limits")
    func production() {
        #expect(IdentityConfiguration().passwordParameters == .interactive)
        #expect(PasswordHasher.Parameters.interactive.memoryBytes == 64 * 1024 * 1024)
        #expect(PasswordHasher.Parameters.interactive.operations == 2)
    }

    @Test(
        "the policy admits 10 to 1024 bytes",
        arguments: [(9, false), (10, true), (1024, true), (1025, false), (0, false)]
    )
    func policy(length: Int, accepted: Bool) {
        let password = String(repeating: "a", count: length)
        if accepted {
            #expect(throws: Never.self) { try PasswordPolicy().check(password) }
        } else {
            #expect(throws: IdentityError(.weakPassword, "", field: "password")) { try PasswordPolicy().check(password) }
        }
    }

    @Test("the policy counts bytes, not characters")
    func bytes() {
        // Five characters, ten bytes of UTF-8.
        #expect(throws: Never.self) { try PasswordPolicy().check("ééééé") }
    }
}
