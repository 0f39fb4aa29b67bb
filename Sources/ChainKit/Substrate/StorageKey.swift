/// How a storage map hashes each key before appending it (FRAME's `StorageHasher`, named as in metadata).
///
/// The `…Concat` hashers append the key itself after its hash, so the key can be read back from the
/// storage key while iterating a map. The twox hashers are not cryptographic: FRAME uses them only for keys
/// users cannot choose freely.
public enum StorageHasher: String, CaseIterable, Hashable, Sendable {
    /// blake2b with a 16-byte output.
    case blake2_128 = "Blake2_128"
    /// blake2b with a 32-byte output.
    case blake2_256 = "Blake2_256"
    /// blake2b with a 16-byte output, then the key.
    case blake2_128Concat = "Blake2_128Concat"
    /// twox with a 16-byte output.
    case twox128 = "Twox128"
    /// twox with a 32-byte output.
    case twox256 = "Twox256"
    /// twox with an 8-byte output, then the key.
    case twox64Concat = "Twox64Concat"
    /// The key itself.
    case identity = "Identity"

    /// The hasher called `name`, in metadata spelling (`Blake2_128Concat`) or snake case (`blake2_128_concat`).
    public init?(name: String) {
        let folded = name.lowercased().filter { $0 != "_" }
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased().filter { $0 != "_" } == folded }) else {
            return nil
        }
        self = match
    }

    /// The bytes this hasher contributes to a storage key for the SCALE-encoded `key`.
    public func hash(_ key: some Collection<UInt8>) -> [UInt8] {
        switch self {
        case .blake2_128: blake2b128(key)
        case .blake2_256: blake2b256(key)
        case .blake2_128Concat: blake2b128(key) + key
        case .twox128: ChainKit.twox128(key)
        case .twox256: ChainKit.twox256(key)
        case .twox64Concat: twox64(key) + key
        case .identity: Array(key)
        }
    }
}

/// The key of a FRAME storage item: `twox128(pallet) ‖ twox128(item)`, then each map key through its hasher.
///
/// ```swift
/// // System.Account(alice): the account's nonce and balances.
/// let key = StorageKey(pallet: "System", item: "Account", keys: [(.blake2_128Concat, alicePublicKey)])
/// ```
public struct StorageKey: Hashable, Sendable, CustomStringConvertible {
    /// The raw key, as a node's `state_getStorage` takes it.
    public let bytes: [UInt8]

    /// The key of a plain value (no `keys`) or of one entry of a map or double map.
    /// - Parameters:
    ///   - pallet: the pallet's name in metadata, such as `System`.
    ///   - item: the storage item's name, such as `Account`.
    ///   - keys: each map key, SCALE-encoded, with the hasher the metadata declares for it, in order.
    public init(pallet: String, item: String, keys: [(hasher: StorageHasher, key: [UInt8])] = []) {
        var bytes = Self.prefix(pallet: pallet, item: item)
        for (hasher, key) in keys {
            bytes.append(contentsOf: hasher.hash(key))
        }
        self.bytes = bytes
    }

    /// `twox128(pallet) ‖ twox128(item)`: the key of a plain value, and the prefix shared by a map's entries.
    public static func prefix(pallet: String, item: String) -> [UInt8] {
        twox128(Array(pallet.utf8)) + twox128(Array(item.utf8))
    }

    /// The key as `0x`-prefixed hex, as JSON-RPC takes it.
    public var description: String { Hex.encode(bytes) }
}
