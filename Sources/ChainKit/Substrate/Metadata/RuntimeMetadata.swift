/// A runtime's metadata, decoded from the bytes `state_getMetadata` returns (`RuntimeMetadataPrefixed`):
/// the type registry, the pallets with their calls and storage, the extrinsic format and its signed
/// extensions, and for V15 the runtime APIs, outer enums and custom values.
///
/// Versions 14 and 15 are read; anything else is refused, as is input that is truncated, malformed, or has
/// bytes left over. Every failure is `invalid_scale`, never a trap, so untrusted bytes from a node are safe.
///
/// ```swift
/// let metadata = try RuntimeMetadata(bytes: try Hex.decode(stateGetMetadataResult))
/// let transfer = try #require(metadata.callIndex(pallet: "Balances", call: "transfer_keep_alive"))   // 04 03 on peaq
/// let account = try metadata.storageKey(pallet: "System", item: "Account", keys: [alice.publicKey])
/// let order = metadata.extrinsic.signedExtensions.map(\.identifier)
/// ```
public struct RuntimeMetadata: Sendable {
    /// The four bytes every metadata blob starts with: `meta`.
    public static let magic: [UInt8] = Array("meta".utf8)
    /// The metadata versions this decoder reads.
    public static let supportedVersions: ClosedRange<UInt8> = 14...15

    /// The metadata version (byte 4 of the blob).
    public let version: UInt8
    /// Every type the rest of the metadata refers to by id.
    public let types: PortableRegistry
    /// The pallets, in the order the metadata lists them (not necessarily by index).
    public let pallets: [PalletMetadata]
    /// The extrinsic format and the ordered signed-extension list.
    public let extrinsic: ExtrinsicMetadata
    /// The `Runtime` type itself.
    public let runtimeType: MetadataTypeID
    /// The runtime APIs (V15; empty for V14).
    public let apis: [RuntimeAPIMetadata]
    /// The aggregate call, event and error enums (V15; nil for V14).
    public let outerEnums: OuterEnumsMetadata?
    /// Custom values by name (V15; empty for V14).
    public let custom: [CustomValueMetadata]

    /// Decodes a metadata blob: `meta`, a version byte, and the body, with nothing after it.
    /// - Parameter bytes: the raw bytes (hex-decode a JSON-RPC result first; strip the `Option`/length prefix of
    ///   `Metadata_metadata_at_version` first).
    /// - Throws: `invalid_scale` for a wrong magic, an unsupported version, truncated or malformed bytes, or
    ///   trailing bytes.
    public init(bytes: some Collection<UInt8>) throws {
        var decoder = SCALEDecoder(bytes)
        do {
            guard try decoder.decodeRaw(count: 4) == Self.magic else {
                throw ChainKitError(.invalidSCALE, "metadata does not start with the magic 'meta' (6d657461)")
            }
            let version = try decoder.decodeByte()
            guard Self.supportedVersions.contains(version) else {
                throw ChainKitError(.invalidSCALE, "metadata version \(version) is not supported (only V14 and V15)")
            }
            self.version = version
            let types = try PortableRegistry(from: &decoder)
            self.types = types
            pallets = try decoder.decodeVector { decoder in try PalletMetadata(from: &decoder, version: version) }
            extrinsic = try ExtrinsicMetadata(from: &decoder, version: version, types: types)
            runtimeType = try MetadataTypeID(from: &decoder)
            if version >= 15 {
                apis = try decoder.decodeVector { decoder in try RuntimeAPIMetadata(from: &decoder) }
                outerEnums = try OuterEnumsMetadata(from: &decoder)
                custom = try decoder.decodeVector { decoder in try CustomValueMetadata(from: &decoder) }
            } else {
                apis = []
                outerEnums = nil
                custom = []
            }
            try decoder.finish()
        } catch let error as ChainKitError where error.code != .invalidSCALE {
            // A compact too wide for its u32 field is malformed metadata, whatever the codec calls it.
            throw ChainKitError(.invalidSCALE, "metadata: \(error.message)")
        }
    }

    // MARK: Lookups

    /// The pallet called `name`.
    public func pallet(named name: String) -> PalletMetadata? {
        pallets.first { $0.name == name }
    }

    /// The pallet whose index (the first byte of its calls and events) is `index`.
    public func pallet(index: UInt8) -> PalletMetadata? {
        pallets.first { $0.index == index }
    }

    /// The call `call` of pallet `pallet`: its two index bytes and its argument fields.
    public func call(pallet: String, call: String) -> CallMetadata? {
        guard let palletMetadata = self.pallet(named: pallet), let callType = palletMetadata.callType,
            case .variant(let variants) = types[callType]?.definition,
            let variant = variants.first(where: { $0.name == call })
        else { return nil }
        return CallMetadata(pallet: palletMetadata.name, index: CallIndex(pallet: palletMetadata.index, call: variant.index), variant: variant)
    }

    /// The two bytes that start the call `call` of pallet `pallet`: the pallet's index and the call's variant index.
    public func callIndex(pallet: String, call: String) -> CallIndex? {
        self.call(pallet: pallet, call: call)?.index
    }

    /// The storage item `item` of pallet `pallet`.
    public func storageEntry(pallet: String, item: String) -> StorageEntryMetadata? {
        self.pallet(named: pallet)?.storageEntry(named: item)
    }

    /// The constant `name` of pallet `pallet`.
    public func constant(pallet: String, name: String) -> PalletConstantMetadata? {
        self.pallet(named: pallet)?.constant(named: name)
    }

    /// The type with id `id`.
    /// - Throws: `invalid_scale` when the registry has no such type.
    public func resolve(_ id: MetadataTypeID) throws -> PortableType {
        try types.resolve(id)
    }

    /// The key of a storage item, hashing each key part with the hasher the metadata declares for it.
    ///
    /// Pass every key part for one entry, or a leading subset for the prefix shared by the entries under them
    /// (to iterate a map with `state_getKeysPaged`). Plain values take no keys.
    /// - Parameters:
    ///   - pallet: the pallet's name, such as `System`.
    ///   - item: the item's name, such as `Account`.
    ///   - keys: the SCALE encoding of each key part, in order (an `AccountId32` is its 32 bytes).
    /// - Throws: `invalid_transaction` for an unknown pallet or item, or more keys than the item has hashers.
    public func storageKey(pallet: String, item: String, keys: [[UInt8]] = []) throws -> StorageKey {
        guard let palletMetadata = self.pallet(named: pallet) else {
            throw ChainKitError(.invalidTransaction, "the runtime has no pallet \(pallet)")
        }
        guard let storage = palletMetadata.storage, let entry = palletMetadata.storageEntry(named: item) else {
            throw ChainKitError(.invalidTransaction, "pallet \(pallet) has no storage item \(item)")
        }
        let hashers = entry.hashers
        guard keys.count <= hashers.count else {
            throw ChainKitError(.invalidTransaction, "\(pallet).\(item) takes \(hashers.count) key parts, not \(keys.count)")
        }
        return StorageKey(pallet: storage.prefix, item: entry.name, keys: Array(zip(hashers, keys)).map { (hasher: $0, key: $1) })
    }
}

/// The first two bytes of an encoded call: the pallet's index and the call's index within the pallet.
public struct CallIndex: Hashable, Sendable, CustomStringConvertible {
    /// The pallet's index.
    public let pallet: UInt8
    /// The call's variant index within the pallet's call enum.
    public let call: UInt8

    /// The index `[pallet, call]`.
    public init(pallet: UInt8, call: UInt8) {
        self.pallet = pallet
        self.call = call
    }

    /// `[pallet, call]`.
    public var bytes: [UInt8] { [pallet, call] }

    /// The two bytes as hex, such as `0x0403`.
    public var description: String { Hex.encode(bytes) }
}

/// A call of a pallet as the metadata describes it: where it is, and the arguments it takes.
public struct CallMetadata: Sendable, Hashable {
    /// The pallet's name.
    public let pallet: String
    /// The call's two index bytes.
    public let index: CallIndex
    /// The call's enum variant: its name, argument fields (in encoding order) and docs.
    public let variant: TypeVariant

    /// The call's name, such as `transfer_keep_alive`.
    public var name: String { variant.name }
    /// The arguments, in the order they are encoded.
    public var arguments: [TypeField] { variant.fields }
}
