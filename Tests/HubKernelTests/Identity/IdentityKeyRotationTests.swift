import CSodium
import Foundation
import HubKernel
import HubTestSupport
import Logging
import Testing

/// JWT signing keys in the vault: `kid`, rotation, the key of before the vault.
@Suite("Identity signing-key rotation", .timeLimit(.minutes(4)))
struct IdentityKeyRotationTests {
    static let keySetName = try! SecretName(namespace: "identity", name: "jwt-keys")

    func kid(_ token: String) throws -> String? {
        let header = try #require(Data(base64URL: String(token.split(separator: ".")[0])))
        return try #require(try JSONSerialization.jsonObject(with: header) as? [String: Any])["kid"] as? String
    }

    /// The stored key set as JSON objects (kid, secret, retired_at…).
    func storedKeys(_ identity: Identity) async throws -> [[String: Any]] {
        let stored = try #require(try await identity.secrets.secret(Self.keySetName))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stored)) as? [String: Any])
        return try #require(object["keys"] as? [[String: Any]])
    }

    /// `token`'s claims under a header of our choosing, signed HS256 with `key`: what a holder of
    /// that key could make.
    func forge(_ token: String, kid: String?, key: [UInt8]) -> String {
        var header: [String: String] = ["alg": "HS256", "typ": "JWT"]
        header["kid"] = kid
        let headerPart = try! JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]).base64URLString
        let signingInput = headerPart + "." + token.split(separator: ".")[1]
        var mac = [UInt8](repeating: 0, count: 32)
        var state = crypto_auth_hmacsha256_state()
        crypto_auth_hmacsha256_init(&state, key, key.count)
        let input = Array(signingInput.utf8)
        crypto_auth_hmacsha256_update(&state, input, UInt64(input.count))
        crypto_auth_hmacsha256_final(&state, &mac)
        return signingInput + "." + Data(mac).base64URLString
    }

    @Test("after a rotation new tokens carry the new kid and tokens of the previous key stay valid until they expire", arguments: TestBackend.enabled)
    func rotation(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withIdentity(on: backend, clock: clock) { identity in
            _ = try await identity.makeAdmin()
            let before = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens.accessToken
            let oldKID = try #require(try kid(before))

            // Another process that loaded the keys before the rotation.
            let other = Identity(
                database: identity.database,
                configuration: identity.configuration,
                clock: identity.clock,
                secrets: SecretsVault(database: identity.database, keyFile: identity.secrets.keyFile, logger: Logger(label: "test")),
                logger: Logger(label: "test")
            )
            try await other.secrets.prepare()
            _ = try await other.tokens.verify(accessToken: before)

            let newKID = try await identity.tokens.rotateSigningKey()
            #expect(newKID != oldKID)
            let after = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens.accessToken
            #expect(try kid(after) == newKID)
            // Both verify here, and in the other process (which reloads on the unknown kid).
            for verifier in [identity, other] {
                _ = try await verifier.tokens.verify(accessToken: before)
                _ = try await verifier.tokens.verify(accessToken: after)
            }
            // The old token lives out its lifetime, then expires like any other.
            clock.advance(seconds: 14 * 60)
            _ = try await identity.tokens.verify(accessToken: before)
            clock.advance(seconds: 61)
            await expectIdentityError(.tokenExpired) { try await identity.tokens.verify(accessToken: before) }

            // Past the longest lifetime (and the reload margin), maintenance drops the old key,
            // and so would the next rotation.
            #expect(try await identity.tokens.dropRetiredKeys() == 0)
            clock.advance(seconds: 60)
            #expect(try await storedKeys(identity).count == 2)
            #expect(try await identity.purgeExpired() >= 1)
            #expect(try await storedKeys(identity).compactMap { $0["kid"] as? String } == [newKID])
            _ = try await identity.tokens.rotateSigningKey()
            let kids = try await storedKeys(identity).compactMap { $0["kid"] as? String }
            #expect(!kids.contains(oldKID) && kids.contains(newKID) && kids.count == 2, "\(kids)")
        }
    }

    @Test("a token whose kid names no key of this hub is refused, even when signed with a real key", arguments: TestBackend.enabled)
    func unknownKID(backend: TestBackend) async throws {
        try await withIdentity(on: backend) { identity in
            _ = try await identity.makeAdmin()
            let token = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens.accessToken
            let current = try #require(try await storedKeys(identity).last)
            let secret = try #require(current["secret"] as? String)
            let key = Array(try #require(Data(base64Encoded: secret)))
            // The forger's control: the same key and its own kid verifies (so the refusals below
            // are about the kid, not about a broken forgery).
            _ = try await identity.tokens.verify(accessToken: forge(token, kid: try kid(token), key: key))
            await expectIdentityError(.tokenInvalid) { try await identity.tokens.verify(accessToken: forge(token, kid: "no-such-key", key: key)) }
            // Without a kid only the key of before the vault verifies, and this hub never had one.
            await expectIdentityError(.tokenInvalid) { try await identity.tokens.verify(accessToken: forge(token, kid: nil, key: key)) }
        }
    }

    @Test("an existing deployment keeps its key: tokens of before (no kid) stay valid, and the plaintext row goes", arguments: TestBackend.enabled)
    func legacyKey(backend: TestBackend) async throws {
        let clock = ManualClock()
        try await withIdentity(on: backend, clock: clock) { identity in
            let legacy = [UInt8](repeating: 0x4B, count: 64)
            try await identity.database.write { connection in
                try connection.execute("DELETE FROM hub_vault_secrets WHERE namespace = 'identity'")
                try connection.execute("INSERT INTO hub_secrets (name, value, created_at) VALUES ('identity.jwt.hs256', \(legacy), 0)")
            }
            _ = try await identity.makeAdmin()
            let token = try await identity.users.login(email: "root@example.org", password: goodPassword).tokens.accessToken
            #expect(try kid(token) != nil)
            // A token the hub signed before the vault: same claims, no kid, the old key.
            let old = forge(token, kid: nil, key: legacy)
            _ = try await identity.tokens.verify(accessToken: old)
            #expect(try await identity.count("hub_secrets") == 0)
            let keys = try await storedKeys(identity)
            #expect(keys.count == 1 && keys[0]["legacy"] as? Bool == true)
            #expect(Data(base64Encoded: keys[0]["secret"] as? String ?? "") == Data(legacy))

            // Rotated: the old key still verifies until its tokens have expired …
            _ = try await identity.tokens.rotateSigningKey()
            _ = try await identity.tokens.verify(accessToken: old)
            // … then a kid-less token is refused as unknown, not merely as expired.
            clock.advance(seconds: 16 * 60)
            await expectIdentityError(.tokenInvalid) { try await identity.tokens.verify(accessToken: old) }
        }
    }
}
