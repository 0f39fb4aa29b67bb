import Foundation
import HubKernel
import HubTestSupport
import Logging
import Testing

@Suite("Identity tokens", .timeLimit(.minutes(4)))
struct IdentityTokenTests {
    @Test("an access token carries the user and expires on the injected clock", arguments: TestBackend.enabled)
    func expiry(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withIdentity(on: backend, clock: clock) { identity in
            let (admin, _) = try await identity.makeAdmin()
            let pair = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens
            #expect(pair.accessToken.split(separator: ".").count == 3)
            #expect(pair.refreshToken.hasPrefix("hubr_"))
            #expect(pair.accessTokenExpiresAt.timeIntervalSince(clock.date) <= 15 * 60)
            #expect(pair.refreshTokenExpiresAt.timeIntervalSince(clock.date) == 30 * 24 * 3600)

            let caller = try await identity.tokens.verify(accessToken: pair.accessToken)
            #expect(caller.userID == admin.id)
            #expect(caller.isAdmin)
            #expect(caller.scopes == nil)

            clock.advance(seconds: 14 * 60)
            _ = try await identity.tokens.verify(accessToken: pair.accessToken)
            clock.advance(seconds: 60)
            await expectIdentityError(.tokenExpired) { try await identity.tokens.verify(accessToken: pair.accessToken) }
        }
    }

    @Test("a tampered, foreign or malformed token is invalid", arguments: TestBackend.enabled)
    func tampered(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            _ = try await identity.makeAdmin()
            let token = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens.accessToken
            let parts = token.split(separator: ".").map(String.init)

            // Claim another role in the payload, keep the signature.
            var payload = try #require(Data(base64URL: parts[1]))
            payload = Data(String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "admin", with: "admim").utf8)
            let forgedPayload = [parts[0], payload.base64URLString, parts[2]].joined(separator: ".")
            // Flip the signature's first character.
            let signature = parts[2]
            let flipped = (signature.first == "A" ? "B" : "A") + signature.dropFirst()
            let forgedSignature = [parts[0], parts[1], flipped].joined(separator: ".")
            // The same claims with alg "none".
            let none = [Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64URLString, parts[1], ""].joined(separator: ".")

            for bad in [forgedPayload, forgedSignature, none, "", "a.b.c", token + "x"] {
                await expectIdentityError(.tokenInvalid) { try await identity.tokens.verify(accessToken: bad) }
            }
        }
    }

    @Test("a token signed by another hub's key is invalid, and the key survives a restart", arguments: TestBackend.enabled)
    func signingKey(backend: TestBackend) async throws {
        var foreignToken = ""
        try await withIdentity(on: backend) { other in
            _ = try await other.makeAdmin()
            foreignToken = try await other.users.login(email: "root@example.org", password: goodPassword).tokens.accessToken
        }
        try await withIdentity(on: backend) { identity in
            _ = try await identity.makeAdmin()
            let token = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens.accessToken
            await expectIdentityError(.tokenInvalid) { try await identity.tokens.verify(accessToken: foreignToken) }

            // A second Identity on the same database (a restart, or another process) accepts it.
            let restarted = Identity(
                database: identity.database,
                configuration: identity.configuration,
                clock: identity.clock,
                secrets: identity.secrets,
                logger: Logger(label: "test")
            )
            _ = try await restarted.tokens.verify(accessToken: token)
            // The key is kept in the vault, sealed; nothing is left in the plaintext table.
            #expect(try await identity.count("hub_secrets") == 0)
            #expect(try await identity.secrets.secret(try SecretName(namespace: "identity", name: "jwt-keys")) != nil)
        }
    }

    @Test("refresh rotates; a reused refresh token revokes the whole family", arguments: TestBackend.enabled)
    func rotationAndReuse(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            _ = try await identity.makeAdmin()
            let first = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens
            let other = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens

            let second = try await identity.tokens.refresh(first.refreshToken)
            #expect(second.refreshToken != first.refreshToken)
            _ = try await identity.tokens.verify(accessToken: second.accessToken)
            let third = try await identity.tokens.refresh(second.refreshToken)

            // The first token comes back: someone copied it. The family ends.
            await expectIdentityError(.refreshReused) { try await identity.tokens.refresh(first.refreshToken) }
            await expectIdentityError(.tokenRevoked) { try await identity.tokens.refresh(third.refreshToken) }
            await expectIdentityError(.tokenRevoked) { try await identity.tokens.refresh(first.refreshToken) }
            #expect(try await identity.events("identity.session.reuse_detected").count == 1)

            // Another session of the same user is untouched.
            _ = try await identity.tokens.refresh(other.refreshToken)
        }
    }

    @Test("logout ends the family; unknown and malformed refresh tokens are invalid", arguments: TestBackend.enabled)
    func logout(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            _ = try await identity.makeAdmin()
            let first = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens
            let second = try await identity.tokens.refresh(first.refreshToken)
            try await identity.tokens.logout(refreshToken: first.refreshToken)
            try await identity.tokens.logout(refreshToken: second.refreshToken)
            await expectIdentityError(.tokenRevoked) { try await identity.tokens.refresh(second.refreshToken) }

            let before = try await identity.snapshot()
            let unknown = "hubr_" + String(repeating: "A", count: 43)
            for bad in [unknown, "hubr_short", second.accessToken, ""] {
                await expectIdentityError(.tokenInvalid) { try await identity.tokens.refresh(bad) }
                await expectIdentityError(.tokenInvalid) { try await identity.tokens.logout(refreshToken: bad) }
            }
            #expect(try await identity.snapshot() == before)
        }
    }

    @Test("a refresh token expires after its lifetime", arguments: TestBackend.enabled)
    func refreshExpiry(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withIdentity(on: backend, clock: clock, configure: { $0.refreshTokenLifetime = .seconds(3600) }) { identity in
            _ = try await identity.makeAdmin()
            let pair = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens
            clock.advance(seconds: 3599)
            let next = try await identity.tokens.refresh(pair.refreshToken)
            clock.advance(seconds: 3600)
            await expectIdentityError(.tokenExpired) { try await identity.tokens.refresh(next.refreshToken) }
        }
    }

    @Test("two concurrent refreshes with one token: exactly one succeeds", arguments: TestBackend.enabled)
    func concurrentRefresh(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            _ = try await identity.makeAdmin()
            let pair = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens
            let results = await withTaskGroup(of: Result<TokenPair, any Error>.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        do { return .success(try await identity.tokens.refresh(pair.refreshToken)) } catch { return .failure(error) }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let successes = results.filter { if case .success = $0 { true } else { false } }
            #expect(successes.count == 1)
            let failure = try #require(results.compactMap { if case .failure(let e) = $0 { e as? IdentityError } else { nil } }.first)
            #expect(failure.code == .refreshReused)
        }
    }
}

extension ManualClock {
    var date: Date {
        let now = ledgerClock.now()
        return Date(timeIntervalSince1970: Double(now.nanoseconds) / 1_000_000_000)
    }
}

extension Data {
    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }

    var base64URLString: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

@Suite("Identity maintenance", .timeLimit(.minutes(3)))
struct IdentityMaintenanceTests {
    @Test("purging removes expired refresh tokens and challenges only", arguments: TestBackend.enabled)
    func purge(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withIdentity(on: backend, clock: clock, configure: { $0.refreshTokenLifetime = .seconds(3600) }) { identity in
            identity.wallets.schemes.register(TestEd25519Scheme())
            _ = try await identity.makeAdmin()
            let old = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens
            _ = try await identity.tokens.refresh(old.refreshToken)
            _ = try await identity.wallets.challenge(scheme: "test-ed25519", address: TestWallet().address)
            #expect(try await identity.purgeExpired() == 0)

            clock.advance(seconds: 3600)
            let fresh = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens
            #expect(try await identity.purgeExpired() == 3, "two tokens of the old family and the challenge")
            #expect(try await identity.count("hub_refresh_tokens") == 1)
            _ = try await identity.tokens.refresh(fresh.refreshToken)
        }
    }
}
