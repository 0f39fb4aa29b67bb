import Foundation
import JWTKit
import Logging
import Synchronization

/// The JWT signing keys: loaded from the vault, cached, reloaded, rotated.
extension TokenService {
    /// The vault secret holding the ``JWTKeySet``.
    static let keySetName = SecretName(unchecked: "identity", "jwt-keys")

    /// How long a process uses its cached key set before reading it again: another process's
    /// rotation is seen within this, and a token with an unknown `kid` triggers a read at once.
    static let reloadInterval: Duration = .seconds(30)

    /// How long a retired key keeps verifying: the longest an access token lives, plus the time
    /// another process may still sign with that key before it reloads.
    var retiredKeyGrace: Duration { context.configuration.accessTokenLifetime + Self.reloadInterval }

    /// The key set with one collection per key, so a token is checked only against the key its
    /// `kid` names (jwt-kit would fall back to its default key for an unknown `kid`).
    struct LoadedKeys: Sendable {
        let set: JWTKeySet
        let collections: [String: JWTKeyCollection]
        let loadedAt: ContinuousClock.Instant
    }

    /// The cached keys, read again after ``reloadInterval`` or when `force`d. A forced read costs
    /// one primary-key lookup, what any bearer token costs anyway (its user and session are read).
    func signingKeys(force: Bool = false) async throws -> LoadedKeys {
        let now = ContinuousClock.now
        if !force, let loaded = signer.withLock({ $0 }), loaded.loadedAt.duration(to: now) < Self.reloadInterval { return loaded }
        let set = try await loadKeySet()
        var collections: [String: JWTKeyCollection] = [:]
        for key in set.keys {
            let collection = JWTKeyCollection()
            await collection.add(hmac: HMACKey(from: key.bytes), digestAlgorithm: .sha256, kid: JWKIdentifier(string: key.kid))
            collections[key.kid] = collection
        }
        let loaded = LoadedKeys(set: set, collections: collections, loadedAt: now)
        signer.withLock { $0 = loaded }
        return loaded
    }

    /// The collection that may verify `token`: the key its header's `kid` names, or for a token
    /// without one the key of before the vault, as long as that key still verifies.
    /// - Throws: `token_invalid` for a malformed header or a key this hub does not have (any more).
    func verifyingKeys(for token: String) async throws -> JWTKeyCollection {
        guard let header = Self.header(of: token) else {
            throw IdentityError(.tokenInvalid, "the access token is not one this hub signed")
        }
        let now = context.now()
        func find(_ loaded: LoadedKeys) -> JWTKeyCollection? {
            let usable = loaded.set.verifying(at: now, grace: retiredKeyGrace)
            let key = header.kid.map { kid in usable.first { $0.kid == kid } } ?? usable.first(where: \.legacy)
            return key.flatMap { loaded.collections[$0.kid] }
        }
        if let found = find(try await signingKeys()) { return found }
        // Perhaps another process rotated since this one loaded its keys.
        if let found = find(try await signingKeys(force: true)) { return found }
        throw IdentityError(.tokenInvalid, "the access token is signed with a key this hub does not have (kid \(header.kid ?? "none"))")
    }

    /// Makes a new current signing key (`hubd secrets rotate-jwt`) and returns its `kid`. The
    /// previous key keeps verifying for ``retiredKeyGrace``; keys retired longer ago are dropped.
    public func rotateSigningKey() async throws -> String {
        _ = try await loadKeySet()
        let (vault, name, now, grace) = (context.secrets, Self.keySetName, context.now(), retiredKeyGrace)
        let rotated = try await context.database.write { connection in
            // Lock first, so two rotations at once apply one after the other, not one over the other.
            _ = try vault.sealingKey(on: connection)
            guard let stored = try vault.read(name, on: connection) else {
                throw SecretsError(.notReady, "\(name) vanished during the rotation")
            }
            let rotated = try JWTKeySet(encoded: stored).rotated(now: now, grace: grace)
            try vault.write(rotated.encoded, as: name, on: connection)
            return rotated
        }
        signer.withLock { $0 = nil }
        context.logger.info("rotated the JWT signing key", metadata: ["hub.jwt.kid": "\(rotated.current.kid)"])
        return rotated.current.kid
    }

    /// Removes keys retired longer than ``retiredKeyGrace`` ago from the stored set (they no
    /// longer verify anyway); returns how many went. Run by the identity maintenance service.
    @discardableResult
    public func dropRetiredKeys() async throws -> Int {
        let (vault, name, now, grace) = (context.secrets, Self.keySetName, context.now(), retiredKeyGrace)
        return try await context.database.write { connection in
            _ = try vault.sealingKey(on: connection)
            guard let stored = try vault.read(name, on: connection) else { return 0 }
            let set = try JWTKeySet(encoded: stored)
            let pruned = set.pruned(now: now, grace: grace)
            guard pruned.keys.count < set.keys.count else { return 0 }
            try vault.write(pruned.encoded, as: name, on: connection)
            return set.keys.count - pruned.keys.count
        }
    }

    /// The key set from the vault; made on first use, from the key of before the vault
    /// (`hub_secrets`) when there is one, so tokens it signed stay valid. The old row is removed
    /// in the same transaction, so the plaintext key leaves the database with the migration.
    func loadKeySet() async throws -> JWTKeySet {
        let (vault, name, now) = (context.secrets, Self.keySetName, context.now())
        if let stored = try await vault.secret(name) { return try JWTKeySet(encoded: stored) }
        let encoded = try await context.database.write { connection in
            if let stored = try vault.read(name, on: connection) { return stored }
            let legacy = try connection.queryFirst("SELECT value FROM hub_secrets WHERE name = \(HubSecrets.jwtSigningKey)")?.bytes("value")
            let set = legacy.map { JWTKeySet.migrating(legacySecret: $0, now: now) } ?? .fresh(now: now)
            try vault.write(set.encoded, as: name, on: connection)
            try connection.execute("DELETE FROM hub_secrets WHERE name = \(HubSecrets.jwtSigningKey)")
            return set.encoded
        }
        return try JWTKeySet(encoded: encoded)
    }

    /// The part of a JOSE header this service reads.
    struct Header {
        let kid: String?
    }

    /// The token's header, or `nil` when it is not base64url JSON (or its `kid` is not a string).
    static func header(of token: String) -> Header? {
        guard let part = token.split(separator: ".", omittingEmptySubsequences: false).first else { return nil }
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let data = Data(base64Encoded: text), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        guard let kid = object["kid"] else { return Header(kid: nil) }
        guard let text = kid as? String else { return nil }
        return Header(kid: text)
    }
}
