import Logging
import Synchronization

extension SecretsVault {
    /// Loads the key-encryption key and checks it against the database; run once at start-up,
    /// after migrations, before any secret is used. Blocking file I/O: start-up only.
    ///
    /// - A fresh vault takes the key file if it exists; otherwise the first legacy key file a rail
    ///   declared (the local chain's key file of before the vault), copied, so that key becomes
    ///   the KEK; otherwise a new random key. The file is created with mode 0600.
    /// - A vault in use needs the key its secrets are sealed with. When only the next key file
    ///   holds it, a rotation committed and crashed before its rename: the rename is finished here.
    /// - Then the declared data keys are loaded, or created (from their legacy file when one
    ///   exists, so what it sealed still opens).
    /// - Throws: ``SecretsError`` `secrets_key_file` (missing, readable by others, malformed) or
    ///   `secrets_wrong_key`, each naming the file.
    public func prepare() async throws {
        let check = SecretName.keyCheck
        let recorded = try await database.read { connection in
            try connection.queryFirst("SELECT kek_id FROM hub_vault_secrets WHERE namespace = \(check.namespace) AND name = \(check.name)")?
                .text("kek_id")
        }
        let legacy = state.withLock { $0.declared.values.compactMap { $0 } }.sorted()
        let current = try loadKey(recorded: recorded, legacyFiles: legacy)
        state.withLock { state in
            state.current = current
            state.keys[current.id] = current.key
        }
        if recorded == nil {
            try await database.write { connection in
                _ = try self.read(check, orCreate: { Self.checkValue }, on: connection)
            }
        }
        // Opening the check row proves the key is the right one (a second process that created
        // its own key file in a race, or a copied database, fails here, not at the first secret).
        guard try await secret(check) == Self.checkValue else {
            throw SecretsError(.wrongKey, "the vault's check value is wrong under the key in \(keyFile)")
        }
        try await loadDataKeys()
    }

    /// The KEK to use, from the files, against the key id the database records (nil: none yet).
    func loadKey(recorded: String?, legacyFiles: [String]) throws -> Keyed {
        let file = try SecretsKeyFile.load(keyFile).map { Keyed(id: SecretsKeyFile.keyID($0), key: $0) }
        guard let recorded else {
            if let file { return file }
            var key = KeyEncryptionKey.random()
            var source = "a new random key"
            if let legacy = legacyFiles.first(where: SecretsKeyFile.exists), let old = try SecretsKeyFile.load(legacy) {
                key = old
                source = "the key of \(legacy)"
            }
            if try SecretsKeyFile.create(keyFile, key: key) {
                logger.notice("created the secrets key file", metadata: ["hub.secrets.key_file": "\(keyFile)", "hub.secrets.source": "\(source)"])
                return Keyed(id: SecretsKeyFile.keyID(key), key: key)
            }
            // Another process created it first: use theirs.
            guard let theirs = try SecretsKeyFile.load(keyFile) else { throw SecretsError(.keyFile, "\(keyFile) vanished after it was created") }
            return Keyed(id: SecretsKeyFile.keyID(theirs), key: theirs)
        }
        if let file, file.id == recorded { return file }
        if let next = try SecretsKeyFile.load(nextKeyFile), SecretsKeyFile.keyID(next) == recorded {
            try SecretsKeyFile.rename(nextKeyFile, over: keyFile)
            logger.notice(
                "finished an interrupted secrets key rotation: the next key file is now the key file",
                metadata: ["hub.secrets.key_file": "\(keyFile)", "hub.secrets.kek_id": "\(recorded)"]
            )
            return Keyed(id: recorded, key: next)
        }
        guard let file else {
            throw SecretsError(
                .keyFile,
                "the secrets key file \(keyFile) does not exist, but this database's secrets are sealed with key \(recorded): restore that file or set HUB_SECRETS_KEY_FILE to it"
            )
        }
        throw SecretsError(
            .wrongKey,
            "the secrets key file \(keyFile) holds key \(file.id), but this database's secrets are sealed with key \(recorded): wrong file for this database"
        )
    }

    /// Loads (or creates) every declared data key.
    func loadDataKeys() async throws {
        let declared = state.withLock { $0.declared }
        guard !declared.isEmpty else { return }
        var initial: [SecretName: [UInt8]] = [:]
        for (name, legacy) in declared {
            if let legacy, let key = try SecretsKeyFile.load(legacy) { initial[name] = key.keyBytes }
        }
        let values = try await database.write { [initial] connection in
            try declared.keys.map { name in
                (name, try self.read(name, orCreate: { initial[name] ?? KeyEncryptionKey.random().keyBytes }, on: connection))
            }
        }
        for (name, value) in values {
            guard let key = KeyEncryptionKey(keyBytes: value) else {
                throw SecretsError(.tampered, "the data key \(name) is not \(KeyEncryptionKey.keyLength) bytes")
            }
            state.withLock { $0.dataKeys[name] = key }
            if initial[name] != nil, value == initial[name] {
                logger.info("a data key keeps the key of its legacy key file", metadata: ["hub.secrets.name": "\(name)"])
            }
        }
    }

    /// Records that `name` is a 32-byte data key to load at ``prepare()``, taken from `legacyFile`
    /// (when it exists) the first time.
    func declareDataKey(_ name: SecretName, legacyFile: String?) {
        state.withLock { $0.declared[name] = legacyFile }
    }

    /// A declared data key, from memory.
    /// - Throws: `secrets_not_ready` before ``prepare()`` or for a key never declared.
    func dataKey(_ name: SecretName) throws -> KeyEncryptionKey {
        guard let key = state.withLock({ $0.dataKeys[name] }) else {
            throw SecretsError(.notReady, "the data key \(name) is not loaded: declare it at start and run SecretsVault.prepare")
        }
        return key
    }
}
