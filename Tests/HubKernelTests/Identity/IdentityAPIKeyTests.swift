import Foundation
import HubKernel
import HubTestSupport
import Testing

@Suite("Identity API keys", .timeLimit(.minutes(4)))
struct IdentityAPIKeyTests {
    @Test("a key is shown once, authenticates with its scopes and stops when revoked", arguments: TestBackend.enabled)
    func lifecycle(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (admin, _) = try await identity.makeAdmin()
            let created = try await identity.apiKeys.create(for: admin.id, name: "till 3", scopes: ["ledger:read", "webhooks:write"])
            #expect(created.plaintext.hasPrefix("hub_\(created.key.id)_"))
            #expect(created.plaintext.utf8.count == 64, "hub_ + 16 hex + _ + 43 base64url")
            #expect(created.plaintext.hasPrefix(created.key.prefix))
            #expect(created.key.scopes == [.ledgerRead, .webhooksWrite])

            let caller = try await identity.authenticate(bearer: created.plaintext)
            #expect(caller.userID == admin.id)
            #expect(caller.displayName == admin.displayName)
            #expect(caller.credential == .apiKey(created.key.id))
            #expect(caller.scopes == [.ledgerRead, .webhooksWrite])
            #expect(caller.allows(scope: .webhooksWrite))
            #expect(!caller.allows(scope: .usersWrite))

            let listed = try await identity.apiKeys.list(for: admin.id)
            #expect(listed.map(\.id) == [created.key.id])
            #expect(listed[0].lastUsedAt != nil)
            let stored = try await identity.database.read { try $0.queryFirst("SELECT secret_hash FROM hub_api_keys")!.bytes("secret_hash") }
            #expect(stored.count == 32)
            #expect(!String(decoding: stored, as: UTF8.self).contains(created.plaintext.suffix(43)))

            let revoked = try await identity.apiKeys.revoke(created.key.id)
            #expect(revoked.isRevoked)
            try await identity.apiKeys.revoke(created.key.id)
            #expect(try await identity.events("identity.api_key.revoked").count == 1, "revoking twice is one change")
            await expectIdentityError(.apiKeyRevoked) { try await identity.authenticate(bearer: created.plaintext) }
            await expectIdentityError(.apiKeyNotFound) { try await identity.apiKeys.revoke(APIKeyID("0000000000000000")!) }
        }
    }

    @Test("a wrong secret, an unknown id or a malformed key is invalid", arguments: TestBackend.enabled)
    func wrongSecret(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (admin, _) = try await identity.makeAdmin()
            let key = try await identity.apiKeys.create(for: admin.id, name: "ci", scopes: ["ledger:read"]).plaintext
            let last = key.last!
            let wrong = key.dropLast() + (last == "A" ? "B" : "A")
            let unknownID = "hub_0000000000000000_" + key.suffix(43)
            for bad in [String(wrong), unknownID, "hub_", "hub_xyz_abc", String(key.dropLast()), key + "A"] {
                await expectIdentityError(.apiKeyInvalid) { try await identity.apiKeys.authenticate(bad) }
            }
        }
    }

    @Test("unknown scopes, empty scopes and scopes beyond the user's roles are refused; nothing changes", arguments: TestBackend.enabled)
    func scopes(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (_, root) = try await identity.makeAdmin()
            let member = try await identity.makeUser("mem@example.org", roles: [.member], by: root)
            let before = try await identity.snapshot()
            await expectIdentityError(.unknownScope) { try await identity.apiKeys.create(for: member.id, name: "k", scopes: ["ledger:delete"]) }
            await expectIdentityError(.invalidField) { try await identity.apiKeys.create(for: member.id, name: "k", scopes: [String]()) }
            await expectIdentityError(.invalidField) { try await identity.apiKeys.create(for: member.id, name: "", scopes: ["ledger:read"]) }
            await expectIdentityError(.scopeNotAllowed) { try await identity.apiKeys.create(for: member.id, name: "k", scopes: ["admin"]) }
            await expectIdentityError(.scopeNotAllowed) { try await identity.apiKeys.create(for: member.id, name: "k", scopes: ["users:read"]) }
            await expectIdentityError(.userNotFound) { try await identity.apiKeys.create(for: UserID.random(), name: "k", scopes: ["ledger:read"]) }
            #expect(try await identity.snapshot() == before)

            let key = try await identity.apiKeys.create(for: member.id, name: "wallet app", scopes: ["ledger:read", "ledger:write"])
            let caller = try await identity.apiKeys.authenticate(key.plaintext)
            #expect(caller.allows(scope: .ledgerWrite))
            #expect(!caller.allows(scope: .eventsRead))
        }
    }

    @Test("a key of a disabled user stops working", arguments: TestBackend.enabled)
    func disabledUser(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (_, root) = try await identity.makeAdmin()
            let member = try await identity.makeUser("mem@example.org", roles: [.member], by: root)
            let key = try await identity.apiKeys.create(for: member.id, name: "k", scopes: ["ledger:read"])
            try await identity.users.disable(member.id, by: root)
            await expectIdentityError(.userDisabled) { try await identity.apiKeys.authenticate(key.plaintext) }
        }
    }

    @Test("last_used_at is written at most once a minute", arguments: TestBackend.enabled)
    func lastUsed(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withIdentity(on: backend, clock: clock) { identity in
            let (admin, _) = try await identity.makeAdmin()
            let key = try await identity.apiKeys.create(for: admin.id, name: "k", scopes: ["ledger:read"])
            #expect(try await identity.apiKeys.key(key.key.id)?.lastUsedAt == nil)
            _ = try await identity.apiKeys.authenticate(key.plaintext)
            let first = try #require(try await identity.apiKeys.key(key.key.id)?.lastUsedAt)
            clock.advance(seconds: 30)
            _ = try await identity.apiKeys.authenticate(key.plaintext)
            #expect(try await identity.apiKeys.key(key.key.id)?.lastUsedAt == first)
            clock.advance(seconds: 31)
            _ = try await identity.apiKeys.authenticate(key.plaintext)
            let later = try #require(try await identity.apiKeys.key(key.key.id)?.lastUsedAt)
            #expect(later.timeIntervalSince(first) == 61)
        }
    }
}
