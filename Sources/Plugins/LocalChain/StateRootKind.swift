import ChainKit

/// How a chain's headers commit to its state. Fixed per chain by its genesis (whose state root is
/// the empty root of one kind or the other), so a relay knows from the genesis alone which root to
/// recompute.
enum StateRootKind: String, Sendable, Equatable {
    /// The binary keccak tree over every account's `[address, nonce, balance]`
    /// (``LocalChainRoots/state(_:)``) of chains created before contracts ran. It does not commit
    /// to code or storage: those chains run contracts all the same, but only their balances and
    /// nonces are proven by the root.
    case keccakMerkle = "keccak-merkle"
    /// Ethereum's: the secure Merkle Patricia trie over `[nonce, balance, storageRoot, codeHash]`
    /// (``EthereumStateRoot``), which any Ethereum implementation recomputes.
    case ethereum

    /// The root of a chain with no accounts: what its genesis carries.
    var emptyRoot: [UInt8] {
        switch self {
        case .keccakMerkle: LocalChainRoots.state([])
        case .ethereum: EthereumStateRoot.root([])
        }
    }

    /// The kind whose empty root a genesis carries, `nil` for neither.
    init?(genesisRoot root: [UInt8]) {
        if root == EthereumStateRoot.root([]) {
            self = .ethereum
        } else if root == LocalChainRoots.state([]) {
            self = .keccakMerkle
        } else {
            return nil
        }
    }

    /// The root after a block's `plan`, and the Ethereum trie it was computed on: `trie` (the
    /// head's, when one is kept) updated for the accounts the block touched, or a new one over the
    /// whole state: every `stored` account as it was before the block, with the block's changes
    /// over them. The keccak Merkle kind has no incremental form and returns no trie.
    func root(
        after plan: BlockExecutor.Plan,
        updating trie: IncrementalTrie?,
        stored: () throws -> [ChainAccount]
    ) throws -> (root: [UInt8], trie: IncrementalTrie?) {
        func wholeState() throws -> [ChainAccount] {
            var all = Dictionary(try stored().map { ($0.address, $0) }, uniquingKeysWith: { first, _ in first })
            for address in plan.touched { all[address] = plan.state[address] }
            return Array(all.values)
        }
        switch self {
        case .keccakMerkle:
            return (root(try wholeState()), nil)
        case .ethereum:
            guard var trie else {
                let built = IncrementalTrie(EthereumStateRoot.accountEntries(try wholeState().map(\.ethereumState)))
                return (built.rootHash, built)
            }
            for address in plan.touched {
                let account = plan.state[address]!.ethereumState
                trie.set(Keccak256.hash(address.bytes), account.isEmpty ? [] : account.encoded)
            }
            return (trie.rootHash, trie)
        }
    }

    /// The root over a chain's whole state. The accounts carry their storage roots and code hashes
    /// (kept up to date block by block), so this needs no contract storage.
    func root(_ accounts: some Sequence<ChainAccount>) -> [UInt8] {
        switch self {
        case .keccakMerkle:
            return LocalChainRoots.state(accounts.map { LocalChainAccountState(address: $0.address, nonce: $0.nonce, balance: $0.balance) })
        case .ethereum:
            return EthereumStateRoot.root(accounts.map(\.ethereumState))
        }
    }
}

extension ChainAccount {
    var ethereumState: EthereumAccountState {
        EthereumAccountState(
            address: address,
            nonce: nonce,
            balance: UInt256(balance),
            storageRoot: storageRoot ?? EthereumStateRoot.emptyStorageRoot,
            codeHash: codeHash ?? EthereumStateRoot.emptyCodeHash
        )
    }
}
