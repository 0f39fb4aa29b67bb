/// A rail's view of the secrets vault (``PluginContext/secrets``): every call is held to the
/// namespace `rail:<plugin id>`, which the rail cannot name differently, so one rail cannot read
/// or overwrite another's secrets or the kernel's.
///
/// ```swift
/// let apiKey = try await context.secrets.secret("upstream-api-key")
/// try await context.secrets.store(Array(token.utf8), as: "upstream-api-key")
/// ```
public struct RailSecrets: Sendable {
    let vault: SecretsVault
    /// `rail:<plugin id>`.
    public let namespace: String

    init(vault: SecretsVault, pluginID: String) {
        self.vault = vault
        self.namespace = SecretName.railNamespace(pluginID)
    }

    func qualified(_ name: String) throws -> SecretName { try SecretName(namespace: namespace, name: name) }

    /// The rail's secret `name`, or `nil`.
    public func secret(_ name: String) async throws -> [UInt8]? { try await vault.secret(try qualified(name)) }

    /// The rail's secret `name`, created from `make()` the first time (once, even across processes).
    public func secret(_ name: String, orCreate make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8] {
        try await vault.secret(try qualified(name), orCreate: make)
    }

    /// Stores `value` as the rail's secret `name` (idempotent).
    public func store(_ value: [UInt8], as name: String) async throws { try await vault.store(value, as: try qualified(name)) }

    /// Removes the rail's secret `name`.
    @discardableResult
    public func remove(_ name: String) async throws -> Bool { try await vault.remove(try qualified(name)) }

    /// Declares a 32-byte data key the vault loads at start-up, so that ``dataKey(_:)`` answers
    /// synchronously afterwards (for sealing inside a unit of work). Call it from the plugin's
    /// `init`. The first time, the key is taken from `legacyFile` when that exists: a rail that
    /// kept its own key file before the vault migrates without losing what it sealed.
    public func declareDataKey(_ name: String, adoptingLegacyFile legacyFile: String? = nil) throws {
        vault.declareDataKey(try qualified(name), legacyFile: legacyFile)
    }

    /// A data key declared with ``declareDataKey(_:adoptingLegacyFile:)``, from memory.
    /// - Throws: ``SecretsError`` `secrets_not_ready` before the vault is prepared.
    public func dataKey(_ name: String) throws -> KeyEncryptionKey { try vault.dataKey(try qualified(name)) }
}

extension SecretsVault {
    /// The view of the rail `pluginID` (what its ``PluginContext/secrets`` is).
    public func railSecrets(for pluginID: String) -> RailSecrets {
        RailSecrets(vault: self, pluginID: pluginID)
    }
}
