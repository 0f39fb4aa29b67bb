import Foundation
import HubKernel
import HubTestSupport
import Logging
import Testing

@Suite("Identity users", .timeLimit(.minutes(4)))
struct IdentityUserTests {
    @Test("an admin creates a user; the email is normalised and the event carries no hash", arguments: TestBackend.enabled)
    func create(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (admin, root) = try await identity.makeAdmin()
            let user = try await identity.users.create(
                NewUser(email: " Ann@Example.ORG", displayName: " Ann ", roles: [.organiser], password: goodPassword),
                by: root
            )
            #expect(user.email == "ann@example.org")
            #expect(user.displayName == "Ann")
            #expect(user.roles == [.organiser])
            #expect(user.createdBy == admin.id)
            #expect(user.hasPassword)
            #expect(try await identity.users.user(user.id) == user)
            #expect(try await identity.users.user(email: "ANN@example.org") == user)

            let events = try await identity.events("identity.user.created")
            #expect(events.count == 2)
            let data = try #require(events.last?.data)
            #expect(data.contains("\"email\":\"ann@example.org\""))
            #expect(data.contains("\"roles\":[\"organiser\"]"))
            #expect(!data.contains("argon2"), "the password hash must never reach the event log")
            #expect(!data.contains("password"))
        }
    }

    @Test("a taken email is refused whatever its case, and nothing changes", arguments: TestBackend.enabled)
    func duplicate(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (_, root) = try await identity.makeAdmin()
            _ = try await identity.makeUser("bob@example.org", roles: [.member], by: root)
            let before = try await identity.snapshot()
            await expectIdentityError(.emailTaken) {
                try await identity.makeUser("BOB@example.org", roles: [.member], by: root)
            }
            #expect(try await identity.snapshot() == before)
        }
    }

    @Test("bad input is refused with its field and changes nothing", arguments: TestBackend.enabled)
    func badInput(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (_, root) = try await identity.makeAdmin()
            let before = try await identity.snapshot()
            let cases: [(NewUser, IdentityError.Code, String)] = [
                (NewUser(email: "not-an-email", displayName: "X", roles: [.member], password: goodPassword), .invalidEmail, "email"),
                (NewUser(email: "x@example.org", displayName: "X", roles: [.member], password: "short"), .weakPassword, "password"),
                (NewUser(email: "x@example.org", displayName: "  ", roles: [.member], password: goodPassword), .invalidField, "display_name"),
                (NewUser(email: "x@example.org", displayName: "X\u{7}", roles: [.member], password: goodPassword), .invalidField, "display_name"),
                (NewUser(email: "x@example.org", displayName: "X", roles: [], password: goodPassword), .invalidField, "roles"),
            ]
            for (new, code, field) in cases {
                do {
                    _ = try await identity.users.create(new, by: root)
                    Issue.record("\(new) was accepted")
                } catch let error as IdentityError {
                    #expect(error.code == code)
                    #expect(error.field == field)
                }
            }
            #expect(try await identity.snapshot() == before)
        }
    }

    @Test("organisers create members only; members create nobody", arguments: TestBackend.enabled)
    func creationRules(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (_, root) = try await identity.makeAdmin()
            let organiser = try await identity.makeUser("org@example.org", roles: [.organiser], by: root).principal
            let member = try await identity.makeUser("mem@example.org", roles: [.member], by: root).principal

            let created = try await identity.makeUser("m2@example.org", roles: [.member], by: organiser)
            #expect(created.createdBy == organiser.userID)
            let before = try await identity.snapshot()
            await expectIdentityError(.forbidden) { try await identity.makeUser("o2@example.org", roles: [.organiser], by: organiser) }
            await expectIdentityError(.forbidden) { try await identity.makeUser("a2@example.org", roles: [.admin], by: organiser) }
            await expectIdentityError(.forbidden) { try await identity.makeUser("m3@example.org", roles: [.member], by: member) }
            #expect(try await identity.snapshot() == before)
        }
    }

    @Test("login succeeds with the password; unknown email and wrong password give the same error", arguments: TestBackend.enabled)
    func login(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (_, root) = try await identity.makeAdmin()
            let ann = try await identity.makeUser("ann@example.org", roles: [.member], by: root)

            let signedIn = try await identity.users.login(email: "ANN@example.org", password: goodPassword)
            #expect(signedIn.user.id == ann.id)
            let caller = try await identity.authenticate(bearer: signedIn.tokens.accessToken)
            #expect(caller.userID == ann.id)
            #expect(caller.roles == [.member])
            #expect(caller.displayName == ann.displayName)

            var errors: [IdentityError] = []
            for (email, password) in [("ann@example.org", "wrong password!"), ("nobody@example.org", goodPassword), ("not an email", goodPassword)] {
                do {
                    _ = try await identity.users.login(email: email, password: password)
                    Issue.record("login with \(email) succeeded")
                } catch let error as IdentityError {
                    errors.append(error)
                }
            }
            #expect(errors.count == 3)
            #expect(errors.allSatisfy { $0.code == .invalidCredentials && $0.message == errors[0].message && $0.field == nil })
        }
    }

    @Test("a user created without a password cannot log in until one is set", arguments: TestBackend.enabled)
    func noPassword(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (_, root) = try await identity.makeAdmin()
            let user = try await identity.users.create(
                NewUser(email: "nopw@example.org", displayName: "No Password", roles: [.member], password: nil),
                by: root
            )
            #expect(!user.hasPassword)
            await expectIdentityError(.invalidCredentials) { try await identity.users.login(email: "nopw@example.org", password: "") }
            await expectIdentityError(.weakPassword) { try await identity.users.setPassword(user.id, to: "short") }
            try await identity.users.setPassword(user.id, to: goodPassword)
            _ = try await identity.users.login(email: "nopw@example.org", password: goodPassword)
        }
    }

    @Test("a login with old hash parameters replaces the hash", arguments: TestBackend.enabled)
    func rehashOnLogin(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { before in
            _ = try await before.users.createAdmin(email: "root@example.org", password: goodPassword)
            let database = before.database
            let storedHash: @Sendable () async throws -> String = {
                try await database.read { try $0.queryFirst("SELECT password_hash FROM hub_users")!.text("password_hash") }
            }
            let old = try await storedHash()

            // The same hub restarted with costlier parameters.
            var stronger = before.configuration
            stronger.passwordParameters = .init(operations: 2, memoryBytes: 64 * 1024)
            let after = Identity(
                database: database,
                configuration: stronger,
                clock: before.clock,
                secrets: before.secrets,
                logger: .init(label: "test")
            )
            _ = try await after.users.login(email: "root@example.org", password: goodPassword)
            let new = try await storedHash()
            #expect(new != old)
            #expect(!after.passwords.needsRehash(new))
            _ = try await after.users.login(email: "root@example.org", password: goodPassword)
            #expect(try await storedHash() == new, "a current hash is left alone")
        }
    }

    @Test("a disabled user cannot log in or use a token, and the last admin cannot be disabled", arguments: TestBackend.enabled)
    func disable(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (admin, root) = try await identity.makeAdmin()
            let organiser = try await identity.makeUser("org@example.org", roles: [.organiser], by: root)
            let member = try await identity.makeUser("mem@example.org", roles: [.member], by: root)
            let session = try await identity.users.login(email: "mem@example.org", password: goodPassword)

            await expectIdentityError(.forbidden) { try await identity.users.disable(organiser.id, by: member.principal) }
            await expectIdentityError(.forbidden) { try await identity.users.disable(organiser.id, by: organiser.principal) }
            await expectIdentityError(.lastAdmin) { try await identity.users.disable(admin.id, by: root) }
            await expectIdentityError(.userNotFound) { try await identity.users.disable(UserID.random(), by: root) }

            let disabled = try await identity.users.disable(member.id, by: organiser.principal)
            #expect(disabled.disabled)
            _ = try await identity.users.disable(member.id, by: organiser.principal)
            #expect(try await identity.events("identity.user.disabled").count == 1, "disabling twice is one change")

            await expectIdentityError(.userDisabled) { try await identity.users.login(email: "mem@example.org", password: goodPassword) }
            await expectIdentityError(.userDisabled) { try await identity.authenticate(bearer: session.tokens.accessToken) }
            await expectIdentityError(.tokenRevoked) { try await identity.tokens.refresh(session.tokens.refreshToken) }

            try await identity.users.enable(member.id, by: root)
            _ = try await identity.users.login(email: "mem@example.org", password: goodPassword)
        }
    }

    @Test("users list in creation order with a cursor", arguments: TestBackend.enabled)
    func list(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let (admin, root) = try await identity.makeAdmin()
            var ids = [admin.id]
            for index in 0..<4 { ids.append(try await identity.makeUser("u\(index)@example.org", roles: [.member], by: root).id) }
            let first = try await identity.users.list(limit: 3)
            let rest = try await identity.users.list(after: first.last?.id, limit: 3)
            #expect(first.count == 3)
            #expect((first + rest).map(\.id) == ids.sorted())
        }
    }
}
