/// One account as Ethereum's state trie holds it: `RLP([nonce, balance, storageRoot, codeHash])`
/// under the key keccak-256(address).
public struct EthereumAccountState: Sendable, Hashable {
    public var address: EthereumAddress
    public var nonce: UInt64
    public var balance: UInt256
    /// The root of the account's storage trie (``EthereumStateRoot/emptyStorageRoot`` when it has none).
    public var storageRoot: [UInt8]
    /// keccak-256 of its code (``EthereumStateRoot/emptyCodeHash`` for none).
    public var codeHash: [UInt8]

    public init(
        address: EthereumAddress,
        nonce: UInt64,
        balance: UInt256,
        storageRoot: [UInt8] = EthereumStateRoot.emptyStorageRoot,
        codeHash: [UInt8] = EthereumStateRoot.emptyCodeHash
    ) {
        self.address = address
        self.nonce = nonce
        self.balance = balance
        self.storageRoot = storageRoot
        self.codeHash = codeHash
    }

    /// EIP-161's empty account: absent from the trie.
    public var isEmpty: Bool { nonce == 0 && balance == .zero && codeHash == EthereumStateRoot.emptyCodeHash }

    /// The trie value: `RLP([nonce, balance, storageRoot, codeHash])`.
    public var encoded: [UInt8] { RLP.encode(.list([.uint(nonce), .uint(balance), .bytes(storageRoot), .bytes(codeHash)])) }
}

/// Ethereum's state root (Yellow Paper §4.1, appendix D): a secure Merkle Patricia trie (keys
/// hashed with keccak-256) over every non-empty account, each committing to its own storage trie
/// (slot keys hashed, values `RLP(minimal big-endian bytes)`, zero slots absent). Any Ethereum
/// implementation given the same accounts computes the same root.
public enum EthereumStateRoot {
    /// keccak-256 of no bytes: the code hash of an account without code.
    public static let emptyCodeHash = Keccak256.hash([UInt8]())
    /// The root of an empty trie.
    public static let emptyStorageRoot = MerklePatriciaTrie.emptyRoot

    /// The storage root over `slots` (32-byte slot → 32-byte value; zero values are absent).
    public static func storageRoot(_ slots: [(slot: [UInt8], value: [UInt8])]) -> [UInt8] {
        MerklePatriciaTrie.root(storageEntries(slots))
    }

    /// The state root over `accounts` (empty accounts are left out, as EIP-161 deletes them).
    public static func root(_ accounts: [EthereumAccountState]) -> [UInt8] {
        MerklePatriciaTrie.root(accountEntries(accounts))
    }

    /// The storage trie's entries: keccak-256(slot) → RLP(the value's minimal bytes), zero slots absent.
    public static func storageEntries(_ slots: [(slot: [UInt8], value: [UInt8])]) -> [(key: [UInt8], value: [UInt8])] {
        slots.compactMap { slot, value in
            let minimal = Array(value.drop { $0 == 0 })
            return minimal.isEmpty ? nil : (key: Keccak256.hash(slot), value: RLP.encode(.bytes(minimal)))
        }
    }

    /// The state trie's entries: keccak-256(address) → the account's encoding, empty ones absent.
    public static func accountEntries(_ accounts: [EthereumAccountState]) -> [(key: [UInt8], value: [UInt8])] {
        accounts.filter { !$0.isEmpty }.map { (key: Keccak256.hash($0.address.bytes), value: $0.encoded) }
    }
}
