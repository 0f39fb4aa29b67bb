// Reading values the metadata describes: constants, storage values, and the runtime version.

extension RuntimeMetadata {
    /// The decoded value of the constant `name` of pallet `pallet`.
    /// - Throws: `invalid_transaction` for an unknown constant; `invalid_scale` when its bytes do not match its type.
    public func decodeConstant(pallet: String, name: String) throws -> SCALEValue {
        guard let constant = constant(pallet: pallet, name: name) else {
            throw ChainKitError(.invalidTransaction, "the runtime has no constant \(pallet).\(name)")
        }
        return try types.decodeValue(of: constant.type, from: constant.value)
    }

    /// The decoded value of a storage item as read from a node.
    ///
    /// Pass nil when the node returned no value (`state_getStorage` gave `null`): an item with the `default`
    /// modifier then reads as its default bytes (a never-seen account has nonce 0 and no balance), and an
    /// `optional` one as nil.
    /// - Parameters:
    ///   - pallet: the pallet's name, such as `System`.
    ///   - item: the item's name, such as `Account`.
    ///   - bytes: the stored SCALE bytes, or nil for an absent key.
    /// - Throws: `invalid_transaction` for an unknown item; `invalid_scale` when the bytes do not match its type.
    public func decodeStorageValue(pallet: String, item: String, bytes: [UInt8]?) throws -> SCALEValue? {
        guard let entry = storageEntry(pallet: pallet, item: item) else {
            throw ChainKitError(.invalidTransaction, "the runtime has no storage item \(pallet).\(item)")
        }
        guard let stored = bytes ?? (entry.modifier == .default ? entry.defaultValue : nil) else { return nil }
        return try types.decodeValue(of: entry.valueType, from: stored)
    }

    /// The runtime's version as its `System.Version` constant records it: the spec and transaction versions a
    /// signed extrinsic commits to, among others.
    /// - Throws: `invalid_transaction` when the metadata has no `System.Version`; `invalid_scale` when it does
    ///   not have the fields of `sp_version::RuntimeVersion`.
    public func runtimeVersion() throws -> RuntimeVersion {
        let value = try decodeConstant(pallet: "System", name: "Version")
        func number(_ field: String) throws -> UInt32 {
            guard let integer = value[field]?.unsignedInteger, let number = UInt32(exactly: integer) else {
                throw ChainKitError(.invalidSCALE, "System.Version has no u32 field \(field)")
            }
            return number
        }
        guard let specName = value["spec_name"]?.string, let implName = value["impl_name"]?.string else {
            throw ChainKitError(.invalidSCALE, "System.Version has no spec_name or impl_name")
        }
        return RuntimeVersion(
            specName: specName,
            implName: implName,
            authoringVersion: try number("authoring_version"),
            specVersion: try number("spec_version"),
            implVersion: try number("impl_version"),
            transactionVersion: try number("transaction_version")
        )
    }
}

/// The identity and version of a runtime (`sp_version::RuntimeVersion`, without its API list).
public struct RuntimeVersion: Sendable, Hashable {
    /// The chain's runtime name, such as `peaq-node`.
    public let specName: String
    /// The implementation's name, such as `parity-rococo-v2.0`.
    public let implName: String
    /// The version of the block authoring interface.
    public let authoringVersion: UInt32
    /// Signed extrinsics commit to this (`CheckSpecVersion`); it changes with every runtime upgrade.
    public let specVersion: UInt32
    /// The implementation's version within a spec version.
    public let implVersion: UInt32
    /// Signed extrinsics commit to this (`CheckTxVersion`); it changes when call encodings change.
    public let transactionVersion: UInt32

    /// A version from its parts, for example from a node's `state_getRuntimeVersion` answer.
    public init(
        specName: String,
        implName: String,
        authoringVersion: UInt32,
        specVersion: UInt32,
        implVersion: UInt32,
        transactionVersion: UInt32
    ) {
        self.specName = specName
        self.implName = implName
        self.authoringVersion = authoringVersion
        self.specVersion = specVersion
        self.implVersion = implVersion
        self.transactionVersion = transactionVersion
    }
}
