import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension SecretsVault {
    /// What a key rotation did.
    public struct Rotation: Sendable {
        public let previousKeyID: String
        public let keyID: String
        /// Rows re-sealed (the vault's check row included).
        public let resealed: Int
    }

    /// Re-seals every secret under a new random key-encryption key (`hubd secrets rotate`).
    ///
    /// Why a crash at any point leaves a usable key, in order:
    /// 1. The new key is written to ``nextKeyFile`` and flushed. A crash now: the database still
    ///    names the old key, which the key file holds; the next file is ignored.
    /// 2. One transaction opens every row with the old key and seals it with the new one, the
    ///    check row included. A crash before its commit rolls all of it back (as 1).
    /// 3. After the commit, ``nextKeyFile`` is renamed over ``keyFile`` (atomic). A crash between
    ///    the commit and the rename: the database names the new key, which only the next file
    ///    holds; ``prepare()`` (and any process that meets the new key id) finds it there and
    ///    finishes the rename.
    ///
    /// A row that does not open stops the rotation before its commit, naming the row: nothing changes.
    /// - Parameter afterCommit: runs between the commit and the rename; a test throws (or
    ///   `hubd` with `HUB_TEST_CRASH_AFTER_COMMIT=1` dies) here to leave what a crash leaves.
    public func rotate(afterCommit: () throws -> Void = {}) async throws -> Rotation {
        let old = try currentKey()
        let lock = try SecretsKeyFile.lockForRotation(keyFile)
        defer { close(lock) }
        let new = KeyEncryptionKey.random()
        let newID = SecretsKeyFile.keyID(new)
        try SecretsKeyFile.replace(nextKeyFile, key: new)
        let now = clock.now()
        let count = try await database.write { connection in
            // Locks the check row first: vault writers wait on it (``sealingKey(on:)``).
            let sealer = try self.sealingKey(on: connection)
            guard sealer.id == old.id else {
                throw SecretsError(.wrongKey, "another rotation changed the key (now \(sealer.id)) while this one ran; run it again")
            }
            let rows = try connection.query(
                "SELECT namespace, name, kek_id, sealed FROM hub_vault_secrets ORDER BY namespace, name\(SQL.forUpdate(connection.dialect))"
            )
            for row in rows {
                let name = SecretName(unchecked: try row.text("namespace"), try row.text("name"))
                let value = try self.open(name, kekID: try row.text("kek_id"), sealed: try row.bytes("sealed"))
                try connection.execute(
                    """
                    UPDATE hub_vault_secrets SET kek_id = \(newID), sealed = \(new.seal(value, associatedData: name.associatedData)), \
                    updated_at = \(now) WHERE namespace = \(name.namespace) AND name = \(name.name)
                    """
                )
            }
            return rows.count
        }
        try afterCommit()
        state.withLock { state in
            state.keys[newID] = new
            state.current = Keyed(id: newID, key: new)
        }
        try SecretsKeyFile.rename(nextKeyFile, over: keyFile)
        logger.notice("rotated the secrets key", metadata: ["hub.secrets.kek_id": "\(newID)", "hub.secrets.resealed": "\(count)"])
        return Rotation(previousKeyID: old.id, keyID: newID, resealed: count)
    }
}
