/// A pallet of the runtime (frame-metadata's `PalletMetadata`): its storage, calls, events, constants and errors.
public struct PalletMetadata: Sendable, Hashable {
    /// The pallet's name in the runtime, such as `Balances`.
    public let name: String
    /// The first byte of every call and event of this pallet, and of its errors' module index.
    public let index: UInt8
    /// The storage prefix (normally the pallet name) and items, or nil for a pallet without storage.
    public let storage: PalletStorageMetadata?
    /// The enum of this pallet's calls, or nil when it has none.
    public let callType: MetadataTypeID?
    /// The enum of this pallet's events, or nil when it has none.
    public let eventType: MetadataTypeID?
    /// The pallet's constants, such as `ExistentialDeposit`.
    public let constants: [PalletConstantMetadata]
    /// The enum of this pallet's errors, or nil when it has none.
    public let errorType: MetadataTypeID?
    /// The pallet's documentation (V15 and later; empty for V14).
    public let docs: [String]

    /// The storage item called `name`, if the pallet has one.
    public func storageEntry(named name: String) -> StorageEntryMetadata? {
        storage?.entries.first { $0.name == name }
    }

    /// The constant called `name`, if the pallet has one.
    public func constant(named name: String) -> PalletConstantMetadata? {
        constants.first { $0.name == name }
    }

    init(from decoder: inout SCALEDecoder, version: UInt8) throws {
        name = try decoder.decode(String.self)
        storage = try decoder.decodeOption { decoder in try PalletStorageMetadata(from: &decoder) }
        callType = try decoder.decodeOption { decoder in try MetadataTypeID(from: &decoder) }
        eventType = try decoder.decodeOption { decoder in try MetadataTypeID(from: &decoder) }
        constants = try decoder.decodeVector { decoder in try PalletConstantMetadata(from: &decoder) }
        errorType = try decoder.decodeOption { decoder in try MetadataTypeID(from: &decoder) }
        index = try decoder.decodeByte()
        docs = version >= 15 ? try decoder.decode([String].self) : []
    }
}

/// A pallet's storage: the prefix hashed into every key, and the items.
public struct PalletStorageMetadata: Sendable, Hashable {
    /// The first part of every key of this pallet (`twox128(prefix)`), normally the pallet's name.
    public let prefix: String
    /// The storage items, in metadata order.
    public let entries: [StorageEntryMetadata]

    init(from decoder: inout SCALEDecoder) throws {
        prefix = try decoder.decode(String.self)
        entries = try decoder.decodeVector { decoder in try StorageEntryMetadata(from: &decoder) }
    }
}

/// One storage item: a plain value or a map, its value type, and what an absent key reads as.
public struct StorageEntryMetadata: Sendable, Hashable {
    /// Whether an absent key reads as nothing (`Option`) or as ``defaultValue``.
    public enum Modifier: UInt8, Sendable, Hashable {
        /// An absent key has no value (`StorageValue<_, _, OptionQuery>`).
        case optional = 0
        /// An absent key reads as the entry's default bytes (`ValueQuery`).
        case `default` = 1
    }

    /// A plain value, or a map with one hasher per key.
    public enum Kind: Sendable, Hashable {
        /// One value under the item's key.
        case plain(value: MetadataTypeID)
        /// A map (or an n-map): `hashers` has one hasher per key part. With one hasher the key type is the key
        /// itself; with several it is a tuple of the parts, in order.
        case map(hashers: [StorageHasher], key: MetadataTypeID, value: MetadataTypeID)
    }

    /// The item's name, such as `Account`.
    public let name: String
    /// What an absent key reads as.
    public let modifier: Modifier
    /// A plain value or a map, with its hashers and types.
    public let kind: Kind
    /// The SCALE bytes an absent key reads as when the modifier is `default`.
    public let defaultValue: [UInt8]
    /// The item's documentation.
    public let docs: [String]

    /// The type of the stored value.
    public var valueType: MetadataTypeID {
        switch kind {
        case .plain(let value): value
        case .map(_, _, let value): value
        }
    }

    /// The hashers of a map's key parts, in order; empty for a plain value.
    public var hashers: [StorageHasher] {
        switch kind {
        case .plain: []
        case .map(let hashers, _, _): hashers
        }
    }

    init(from decoder: inout SCALEDecoder) throws {
        name = try decoder.decode(String.self)
        let at = decoder.offset
        let modifierByte = try decoder.decodeByte()
        guard let modifier = Modifier(rawValue: modifierByte) else {
            throw ChainKitError(.invalidSCALE, "storage modifier \(modifierByte) at offset \(at) is not 0 or 1")
        }
        self.modifier = modifier
        let kindAt = decoder.offset
        switch try decoder.decodeByte() {
        case 0:
            kind = .plain(value: try MetadataTypeID(from: &decoder))
        case 1:
            let hashers = try decoder.decodeVector { decoder in try StorageHasher(metadataFrom: &decoder) }
            let key = try MetadataTypeID(from: &decoder)
            kind = .map(hashers: hashers, key: key, value: try MetadataTypeID(from: &decoder))
        case let other:
            throw ChainKitError(.invalidSCALE, "storage entry type tag \(other) at offset \(kindAt) is not 0 or 1")
        }
        defaultValue = try decoder.decodeBytes()
        docs = try decoder.decode([String].self)
    }
}

extension StorageHasher {
    /// The hasher for its one-byte index in frame-metadata's `StorageHasher` enum.
    init(metadataFrom decoder: inout SCALEDecoder) throws {
        let at = decoder.offset
        switch try decoder.decodeByte() {
        case 0: self = .blake2_128
        case 1: self = .blake2_256
        case 2: self = .blake2_128Concat
        case 3: self = .twox128
        case 4: self = .twox256
        case 5: self = .twox64Concat
        case 6: self = .identity
        case let other: throw ChainKitError(.invalidSCALE, "storage hasher \(other) at offset \(at) is not 0...6")
        }
    }
}

/// A constant of a pallet: its type and SCALE-encoded value (for example `System.Version`, `Balances.ExistentialDeposit`).
public struct PalletConstantMetadata: Sendable, Hashable {
    /// The constant's name.
    public let name: String
    /// The type of its value.
    public let type: MetadataTypeID
    /// The SCALE bytes of the value.
    public let value: [UInt8]
    /// The constant's documentation.
    public let docs: [String]

    init(from decoder: inout SCALEDecoder) throws {
        name = try decoder.decode(String.self)
        type = try MetadataTypeID(from: &decoder)
        value = try decoder.decodeBytes()
        docs = try decoder.decode([String].self)
    }
}
