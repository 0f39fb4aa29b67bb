import HubKernel
import HubTestSupport
import Testing

@Suite("Identity bootstrap", .timeLimit(.minutes(4)))
struct IdentityBootstrapTests {
    @Test("the bootstrap token creates the first admin once", arguments: TestBackend.enabled)
    func once(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let token = try #require(try await identity.users.bootstrapIfNoAdmin())
            #expect(token.hasPrefix("hubb_"))
            let stored = try await identity.database.read { try $0.queryFirst("SELECT token_hash FROM hub_bootstrap_tokens")!.bytes("token_hash") }
            #expect(stored.count == 32, "only the hash is kept")

            let before = try await identity.snapshot()
            await expectIdentityError(.weakPassword) {
                try await identity.users.redeemBootstrap(token: token, email: "root@example.org", password: "short", displayName: "Root")
            }
            await expectIdentityError(.bootstrapInvalid) {
                try await identity.users.redeemBootstrap(token: "hubb_nope", email: "root@example.org", password: goodPassword, displayName: "Root")
            }
            #expect(try await identity.snapshot() == before)

            let signedIn = try await identity.users.redeemBootstrap(
                token: token,
                email: "Root@Example.org",
                password: goodPassword,
                displayName: "Root"
            )
            #expect(signedIn.user.roles == [.admin])
            #expect(signedIn.user.email == "root@example.org")
            #expect(try await identity.authenticate(bearer: signedIn.tokens.accessToken).isAdmin)

            await expectIdentityError(.bootstrapUsed) {
                try await identity.users.redeemBootstrap(token: token, email: "two@example.org", password: goodPassword, displayName: "Two")
            }
            #expect(try await identity.users.bootstrapIfNoAdmin() == nil, "no token once an admin exists")
            #expect(try await identity.count("hub_users") == 1)
        }
    }

    @Test("a new token replaces an unused one, whose plaintext is lost", arguments: TestBackend.enabled)
    func replaced(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let old = try #require(try await identity.users.bootstrapIfNoAdmin())
            let new = try #require(try await identity.users.bootstrapIfNoAdmin())
            #expect(old != new)
            await expectIdentityError(.bootstrapInvalid) {
                try await identity.users.redeemBootstrap(token: old, email: "root@example.org", password: goodPassword, displayName: "Root")
            }
            _ = try await identity.users.redeemBootstrap(token: new, email: "root@example.org", password: goodPassword, displayName: "Root")
        }
    }

    @Test("bootstrap is closed once an admin exists another way", arguments: TestBackend.enabled)
    func closed(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let token = try #require(try await identity.users.bootstrapIfNoAdmin())
            _ = try await identity.users.createAdmin(email: "cli@example.org", password: goodPassword)
            let before = try await identity.snapshot()
            await expectIdentityError(.bootstrapClosed) {
                try await identity.users.redeemBootstrap(token: token, email: "root@example.org", password: goodPassword, displayName: "Root")
            }
            #expect(try await identity.snapshot() == before)
            #expect(try await identity.users.bootstrapIfNoAdmin() == nil)
        }
    }

    @Test("the CLI path creates admins and refuses a taken email", arguments: TestBackend.enabled)
    func createAdmin(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let admin = try await identity.users.createAdmin(email: "cli@example.org", password: goodPassword, displayName: "Ops")
            #expect(admin.isAdmin)
            #expect(admin.createdBy == nil)
            await expectIdentityError(.emailTaken) { try await identity.users.createAdmin(email: "CLI@example.org", password: goodPassword) }
            await expectIdentityError(.weakPassword) { try await identity.users.createAdmin(email: "b@example.org", password: "123") }
            _ = try await identity.users.login(email: "cli@example.org", password: goodPassword)
        }
    }
}
