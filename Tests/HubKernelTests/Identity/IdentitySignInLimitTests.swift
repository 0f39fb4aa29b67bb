import Foundation
import HubKernel
import HubTestSupport
import Logging
import Testing

/// Failed sign-ins are limited where guessing shows, never where a crowd signs in.
@Suite("Identity sign-in limits", .timeLimit(.minutes(3)))
struct IdentitySignInLimitTests {
    static let venue = "203.0.113.7"

    /// `count` members created by an admin, with ``goodPassword``.
    func members(_ count: Int, of identity: Identity) async throws -> [String] {
        let (_, admin) = try await identity.makeAdmin()
        var emails: [String] = []
        for index in 0..<count {
            let email = "guest\(index)@example.org"
            _ = try await identity.makeUser(email, roles: [.member], by: admin)
            emails.append(email)
        }
        return emails
    }

    func wait(of body: () async throws -> Void) async -> Duration? {
        do {
            try await body()
            return nil
        } catch let error as IdentityError where error.code == .tooManyAttempts {
            return error.retryAfter
        } catch {
            Issue.record("expected too_many_attempts, got \(error)")
            return nil
        }
    }

    @Test("a crowd behind one address signs in, typos and all", arguments: TestBackend.enabled)
    func crowd(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let emails = try await members(60, of: identity)
            // Every third attendee mistypes once; the address's failures stay far below its limit.
            for (index, email) in emails.enumerated() {
                if index.isMultiple(of: 3) {
                    await expectIdentityError(.invalidCredentials) {
                        try await identity.users.login(email: email, password: "typo typo typo", from: Self.venue)
                    }
                }
                _ = try await identity.users.login(email: email, password: goodPassword, from: Self.venue)
            }
        }
    }

    @Test("guessing one account from one address waits, doubling; other addresses and accounts do not", arguments: TestBackend.enabled)
    func oneAccountOneAddress(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withIdentity(on: backend, clock: clock) { identity in
            let emails = try await members(2, of: identity)
            for _ in 0..<5 {
                await expectIdentityError(.invalidCredentials) {
                    try await identity.users.login(email: emails[0], password: "guess guess", from: Self.venue)
                }
            }
            // The right password waits too: the limit answers before any hashing.
            let first = await wait { _ = try await identity.users.login(email: emails[0], password: goodPassword, from: Self.venue) }
            #expect(first == .seconds(30))
            _ = try await identity.users.login(email: emails[0], password: goodPassword, from: "198.51.100.1")
            _ = try await identity.users.login(email: emails[1], password: goodPassword, from: Self.venue)

            clock.advance(seconds: 30)
            await expectIdentityError(.invalidCredentials) {
                try await identity.users.login(email: emails[0], password: "guess again", from: Self.venue)
            }
            let second = await wait { _ = try await identity.users.login(email: emails[0], password: goodPassword, from: Self.venue) }
            #expect(second == .seconds(60))
            clock.advance(seconds: 60)
            // Signing in clears the account's counters: the next typo does not wait.
            _ = try await identity.users.login(email: emails[0], password: goodPassword, from: Self.venue)
            await expectIdentityError(.invalidCredentials) {
                try await identity.users.login(email: emails[0], password: "one typo", from: Self.venue)
            }
            _ = try await identity.users.login(email: emails[0], password: goodPassword, from: Self.venue)
        }
    }

    @Test("guesses at one account spread over many addresses stop it until its window passes", arguments: TestBackend.enabled)
    func oneAccountManyAddresses(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withIdentity(on: backend, clock: clock) { identity in
            let emails = try await members(2, of: identity)
            for attacker in 0..<20 {
                await expectIdentityError(.invalidCredentials) {
                    try await identity.users.login(email: emails[0], password: "guess \(attacker)", from: "192.0.2.\(attacker)")
                }
            }
            #expect(await wait { _ = try await identity.users.login(email: emails[0], password: goodPassword, from: "198.51.100.9") } != nil)
            _ = try await identity.users.login(email: emails[1], password: goodPassword, from: "198.51.100.9")
            clock.advance(seconds: 15 * 60)
            _ = try await identity.users.login(email: emails[0], password: goodPassword, from: "198.51.100.9")
            // The counters of each attacker's address, and of it with the account, outlive the
            // sign-in until maintenance drops them.
            clock.advance(seconds: 1)
            #expect(try await identity.count("hub_signin_failures") == 40)
            _ = try await identity.purgeExpired()
            #expect(try await identity.count("hub_signin_failures") == 0)
        }
    }

    @Test("one address trying many accounts, known or not, waits; another address does not", arguments: TestBackend.enabled)
    func oneAddressManyAccounts(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            let emails = try await members(1, of: identity)
            for index in 0..<100 {
                await expectIdentityError(.invalidCredentials) {
                    try await identity.users.login(email: "nobody\(index)@example.org", password: "spray spray", from: Self.venue)
                }
            }
            // An account that exists and one that does not are refused alike: no enumeration.
            #expect(await wait { _ = try await identity.users.login(email: emails[0], password: goodPassword, from: Self.venue) } != nil)
            #expect(await wait { _ = try await identity.users.login(email: "nobody@example.org", password: "x", from: Self.venue) } != nil)
            _ = try await identity.users.login(email: emails[0], password: goodPassword, from: "198.51.100.2")
        }
    }

    @Test("the limits live in the database: another hub process on it applies them", arguments: TestBackend.enabled)
    func sharedByInstances(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withIdentity(on: backend, clock: clock) { identity in
            let emails = try await members(1, of: identity)
            var configuration = IdentityConfiguration()
            configuration.passwordParameters = .minimum
            let other = Identity(
                database: identity.database,
                configuration: configuration,
                clock: clock.ledgerClock,
                secrets: identity.secrets,
                logger: Logger(label: "other")
            )
            for _ in 0..<5 {
                await expectIdentityError(.invalidCredentials) {
                    try await identity.users.login(email: emails[0], password: "guess guess", from: Self.venue)
                }
            }
            #expect(await wait { _ = try await other.users.login(email: emails[0], password: goodPassword, from: Self.venue) } != nil)
        }
    }

    @Test("wrong signatures for one wallet address wait as wrong passwords do", arguments: TestBackend.enabled)
    func wallets(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            identity.wallets.schemes.register(TestEd25519Scheme())
            let wallet = TestWallet()
            let impostor = TestWallet()
            for _ in 0..<5 {
                let challenge = try await identity.wallets.challenge(scheme: "test-ed25519", address: wallet.address)
                await expectIdentityError(.invalidSignature) {
                    try await identity.wallets.login(nonce: challenge.nonce, signature: impostor.sign(challenge.message), from: Self.venue)
                }
            }
            let challenge = try await identity.wallets.challenge(scheme: "test-ed25519", address: wallet.address)
            let waited = await wait {
                _ = try await identity.wallets.login(nonce: challenge.nonce, signature: wallet.sign(challenge.message), from: Self.venue)
            }
            #expect(waited == .seconds(30))
            // The refused answer left the challenge open: the owner answers it from elsewhere.
            _ = try await identity.wallets.login(nonce: challenge.nonce, signature: wallet.sign(challenge.message), from: "198.51.100.3")
        }
    }
}
