import Foundation
public import Logging
import Synchronization

/// The kernel's secrets vault (DESIGN §3.5): small secrets (JWT signing keys, webhook secrets,
/// rails' key material) kept in `hub_vault_secrets`, each sealed with XChaCha20-Poly1305 under one
/// key-encryption key (KEK) that lives in a file outside the database (`HUB_SECRETS_KEY_FILE`).
///
/// - Each row is sealed with its namespace and name as associated data (``SecretName``), so a
///   sealed value copied onto another row does not open, and records the id of the KEK that
///   sealed it (``SecretsKeyFile/keyID(_:)``).
/// - ``prepare()`` runs once at start-up, after migrations: it loads (or creates) the key file,
///   checks that it is the key the database's secrets are sealed with, finishes a rotation a
///   crash interrupted, and loads the data keys rails declared. Until then every use throws
///   `secrets_not_ready`.
/// - Rails get a ``RailSecrets`` view through ``PluginContext/secrets``, held to their own namespace.
/// - ``rotate()`` (`hubd secrets rotate`) re-seals every row under a new KEK in one transaction.
///
/// ```swift
/// let vault = SecretsVault(database: db, keyFile: "var/secrets.key", logger: logger)
/// try await vault.prepare()
/// let name = try SecretName(namespace: "identity", name: "jwt-keys")
/// let value = try await vault.secret(name, orCreate: { newKeySet() })
/// ```
public final class SecretsVault: Sendable {
    public let database: Database
    /// The key file (`HUB_SECRETS_KEY_FILE`).
    public let keyFile: String
    let clock: LedgerClock
    let logger: Logger
    let state = Mutex(State())

    struct State {
        /// The KEK new seals use; `nil` until ``prepare()``.
        var current: Keyed?
        /// Every KEK this process has loaded, by id (the current one and, during a rotation by
        /// another process, the next one).
        var keys: [String: KeyEncryptionKey] = [:]
        /// Rails' data keys (``RailSecrets/declareDataKey(_:adoptingLegacyFile:)``), loaded by ``prepare()``.
        var declared: [SecretName: String?] = [:]
        var dataKeys: [SecretName: KeyEncryptionKey] = [:]
        /// Values opened before, by name with the sealed bytes they came from: a read that finds
        /// the same bytes again skips the decryption, and a changed row is never served stale.
        var opened: [SecretName: (sealed: [UInt8], value: [UInt8])] = [:]
    }

    struct Keyed: Sendable {
        let id: String
        let key: KeyEncryptionKey
    }

    /// The value the vault's check row holds (``SecretName/keyCheck``).
    static let checkValue = Array("hubd secrets vault".utf8)

    /// No I/O happens here; ``prepare()`` reads the key file.
    /// - Parameters:
    ///   - keyFile: where the KEK lives; created at the first ``prepare()`` with mode 0600.
    public init(database: Database, keyFile: String, clock: LedgerClock = .system, logger: Logger) {
        self.database = database
        self.keyFile = keyFile
        self.clock = clock
        self.logger = logger
    }

    /// Where a rotation writes the new key before its transaction commits.
    public var nextKeyFile: String { keyFile + ".next" }

    /// The id of the KEK new seals use.
    /// - Throws: `secrets_not_ready` before ``prepare()``.
    public func currentKeyID() throws -> String { try currentKey().id }

    func currentKey() throws -> Keyed {
        guard let current = state.withLock({ $0.current }) else {
            throw SecretsError(.notReady, "the secrets vault is used before it was prepared (SecretsVault.prepare at start-up)")
        }
        return current
    }

    // MARK: Reading and writing

    /// The secret `name`, or `nil` when there is none.
    /// - Throws: `secret_tampered` when its row does not open; `secrets_wrong_key` when it is sealed
    ///   under a key this process does not have.
    public func secret(_ name: SecretName) async throws -> [UInt8]? {
        try await database.read { connection in try self.read(name, on: connection) }
    }

    /// The secret `name`, created from `make()` when there is none. Concurrent first uses (even
    /// from two processes) store one value and all return that one.
    public func secret(_ name: SecretName, orCreate make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8] {
        try await database.write { connection in try self.read(name, orCreate: make, on: connection) }
    }

    /// Stores `value` as `name`. Idempotent: storing the value it already holds writes nothing.
    public func store(_ value: [UInt8], as name: SecretName) async throws {
        try await database.write { connection in try self.write(value, as: name, on: connection) }
    }

    /// Removes `name`; `false` when there was none.
    @discardableResult
    public func remove(_ name: SecretName) async throws -> Bool {
        try await database.write { connection in try self.remove(name, on: connection) }
    }

    /// ``secret(_:)`` inside the caller's transaction (on a database worker's thread).
    public func read(_ name: SecretName, on connection: any SQLConnection) throws -> [UInt8]? {
        // Even an absent secret needs a prepared vault: an answer must not depend on which rows exist.
        _ = try currentKey()
        let row = try connection.queryFirst(
            "SELECT kek_id, sealed FROM hub_vault_secrets WHERE namespace = \(name.namespace) AND name = \(name.name)"
        )
        guard let row else { return nil }
        return try open(name, kekID: try row.text("kek_id"), sealed: try row.bytes("sealed"))
    }

    /// ``secret(_:orCreate:)`` inside the caller's write transaction.
    public func read(_ name: SecretName, orCreate make: () -> [UInt8], on connection: any SQLConnection) throws -> [UInt8] {
        if let value = try read(name, on: connection) { return value }
        let sealer = try sealingKey(on: connection)
        try connection.execute(
            """
            INSERT INTO hub_vault_secrets (namespace, name, kek_id, sealed, updated_at) \
            VALUES (\(name.namespace), \(name.name), \(sealer.id), \(sealer.key.seal(make(), associatedData: name.associatedData)), \(clock.now())) \
            ON CONFLICT (namespace, name) DO NOTHING
            """
        )
        guard let value = try read(name, on: connection) else {
            throw SecretsError(.tampered, "the secret \(name) vanished while it was being created")
        }
        return value
    }

    /// ``store(_:as:)`` inside the caller's write transaction.
    public func write(_ value: [UInt8], as name: SecretName, on connection: any SQLConnection) throws {
        let existing = try connection.queryFirst(
            "SELECT kek_id, sealed FROM hub_vault_secrets WHERE namespace = \(name.namespace) AND name = \(name.name)\(SQL.forUpdate(connection.dialect))"
        )
        if let existing, try open(name, kekID: try existing.text("kek_id"), sealed: try existing.bytes("sealed")) == value { return }
        let sealer = try sealingKey(on: connection)
        let sealed = sealer.key.seal(value, associatedData: name.associatedData)
        try connection.execute(
            """
            INSERT INTO hub_vault_secrets (namespace, name, kek_id, sealed, updated_at) \
            VALUES (\(name.namespace), \(name.name), \(sealer.id), \(sealed), \(clock.now())) \
            ON CONFLICT (namespace, name) DO UPDATE SET kek_id = excluded.kek_id, sealed = excluded.sealed, updated_at = excluded.updated_at
            """
        )
    }

    /// ``remove(_:)`` inside the caller's write transaction.
    @discardableResult
    public func remove(_ name: SecretName, on connection: any SQLConnection) throws -> Bool {
        state.withLock { _ = $0.opened.removeValue(forKey: name) }
        return try connection.execute("DELETE FROM hub_vault_secrets WHERE namespace = \(name.namespace) AND name = \(name.name)") > 0
    }

    /// The value sealed in a row of `name`.
    func open(_ name: SecretName, kekID: String, sealed: [UInt8]) throws -> [UInt8] {
        if let hit = state.withLock({ $0.opened[name] }), hit.sealed == sealed { return hit.value }
        let key = try key(id: kekID)
        guard let value = key.open(sealed, associatedData: name.associatedData) else {
            throw SecretsError(
                .tampered,
                "the stored secret \(name) does not open under key \(kekID): it was changed, or copied from another secret or database"
            )
        }
        state.withLock { $0.opened[name] = (sealed, value) }
        return value
    }

    /// The KEK with `id`. One this process has not seen (another process rotated) is looked for
    /// in the key file and the next key file again: blocking file I/O, but on the database
    /// worker's thread and only once per rotation.
    func key(id: String) throws -> KeyEncryptionKey {
        _ = try currentKey()
        if let key = state.withLock({ $0.keys[id] }) { return key }
        for path in [keyFile, nextKeyFile] {
            if let key = try SecretsKeyFile.load(path), SecretsKeyFile.keyID(key) == id {
                state.withLock { $0.keys[id] = key }
                return key
            }
        }
        throw SecretsError(.wrongKey, "a secret is sealed with key \(id), which neither \(keyFile) nor \(nextKeyFile) holds")
    }

    /// The KEK to seal with now: the one the check row was sealed with, which a rotation changes
    /// in the same transaction as every other row. Locking that row (PostgreSQL) orders this
    /// write after a rotation in flight, so no process seals under a key that was just retired.
    func sealingKey(on connection: any SQLConnection) throws -> Keyed {
        let current = try currentKey()
        let name = SecretName.keyCheck
        let row = try connection.queryFirst(
            "SELECT kek_id FROM hub_vault_secrets WHERE namespace = \(name.namespace) AND name = \(name.name)\(SQL.forUpdate(connection.dialect))"
        )
        guard let recorded = try row?.text("kek_id"), recorded != current.id else { return current }
        let key = try key(id: recorded)
        let keyed = Keyed(id: recorded, key: key)
        state.withLock { $0.current = keyed }
        logger.info("the secrets key was rotated by another process; sealing with the new one", metadata: ["hub.secrets.kek_id": "\(recorded)"])
        return keyed
    }
}
