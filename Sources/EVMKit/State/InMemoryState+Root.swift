import ChainKit

extension InMemoryState {
    /// The state root: the secure trie (keys hashed) of RLP([nonce, balance, storageRoot, codeHash]).
    public var stateRoot: U256 {
        let entries = accounts.map { address, account in
            let storageRoot = MerklePatriciaTrie.root(
                (storage[address] ?? [:]).map { slot, value in
                    (key: Keccak256.hash(slot.bigEndianBytes), value: RLP.encode(.bytes(value.minimalBigEndianBytes)))
                }
            )
            let value = RLP.encode(
                .list([
                    .uint(account.nonce), .bytes(account.balance.minimalBigEndianBytes), .bytes(storageRoot),
                    .bytes(Keccak256.hash(account.code)),
                ])
            )
            return (key: Keccak256.hash(address.bytes), value: value)
        }
        return U256(bigEndian: MerklePatriciaTrie.root(entries))
    }
}

extension Log {
    /// keccak-256 of the RLP list of logs, as state tests give it.
    public static func hash(_ logs: [Log]) -> U256 {
        let items = logs.map { log in
            RLPItem.list([.bytes(log.address.bytes), .list(log.topics.map { .bytes($0.bigEndianBytes) }), .bytes(log.data)])
        }
        return U256(bigEndian: Keccak256.hash(RLP.encode(.list(items))))
    }
}
