/// One account of a local chain's state, as the state root commits to it.
public struct LocalChainAccountState: Sendable, Hashable {
    public var address: EthereumAddress
    public var nonce: UInt64
    public var balance: UInt128

    public init(address: EthereumAddress, nonce: UInt64, balance: UInt128) {
        self.address = address
        self.nonce = nonce
        self.balance = balance
    }

    /// The state leaf: `RLP([address, nonce, balance])`.
    public var leaf: [UInt8] { RLP.encode(.list([.bytes(address.bytes), .uint(nonce), .uint(UInt256(balance))])) }
}

/// The roots a local chain header carries.
public enum LocalChainRoots {
    /// The state root: a ``KeccakMerkle`` root over every account with a nonce or a balance,
    /// ordered by address bytes, so that it commits to the whole state and any node that replays
    /// the blocks computes the same value.
    public static func state(_ accounts: [LocalChainAccountState]) -> [UInt8] {
        let leaves = accounts.filter { $0.nonce != 0 || $0.balance != 0 }
            .sorted { $0.address.bytes.lexicographicallyPrecedes($1.address.bytes) }
            .map(\.leaf)
        return KeccakMerkle.root(leaves)
    }

    /// The transactions root over the raw signed transactions, in block order.
    public static func transactions(_ raw: [[UInt8]]) -> [UInt8] { KeccakMerkle.root(raw) }

    /// The receipts root over `RLP([status, txHash])` per transaction, in block order.
    public static func receipts(_ receipts: [LocalChainReceipt]) -> [UInt8] { KeccakMerkle.root(receipts.map(\.leaf)) }
}

/// What executing one transaction did: 1 (success) or 0 (failed: not enough balance; the nonce is
/// used all the same, as on Ethereum).
public struct LocalChainReceipt: Sendable, Hashable {
    public var transactionHash: [UInt8]
    public var status: UInt8

    public init(transactionHash: [UInt8], status: UInt8) {
        self.transactionHash = transactionHash
        self.status = status
    }

    public var leaf: [UInt8] { RLP.encode(.list([.uint(UInt64(status)), .bytes(transactionHash)])) }
}
