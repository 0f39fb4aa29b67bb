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

/// A log a contract emitted: the emitting address, up to four 32-byte topics and its data.
public struct LocalChainLog: Sendable, Hashable {
    public var address: EthereumAddress
    public var topics: [[UInt8]]
    public var data: [UInt8]

    public init(address: EthereumAddress, topics: [[UInt8]], data: [UInt8]) {
        self.address = address
        self.topics = topics
        self.data = data
    }

    /// `[address, [topic…], data]`, as in an Ethereum receipt.
    var item: RLPItem { .list([.bytes(address.bytes), .list(topics.map(RLPItem.bytes)), .bytes(data)]) }

    static func decode(_ item: RLPItem) throws -> LocalChainLog {
        let fields = try item.list("a log")
        guard fields.count == 3 else { throw ChainKitError(.invalidRLP, "a log has 3 fields, got \(fields.count)") }
        let topics = try fields[1].list("the topics").map { try $0.bytes("a topic") }
        guard topics.count <= 4, topics.allSatisfy({ $0.count == 32 }) else {
            throw ChainKitError(.invalidRLP, "a log has at most 4 topics of 32 bytes")
        }
        return LocalChainLog(
            address: try EthereumAddress(bytes: try fields[0].bytes("the address")),
            topics: topics,
            data: try fields[2].bytes("data")
        )
    }
}

/// What executing one transaction did: 1 (success) or 0 (failed: not enough balance, reverted,
/// out of gas; the nonce is used all the same, as on Ethereum), the gas it used and its logs.
///
/// Blocks sealed before contracts ran carry `[status, txHash]` only (`gasUsed` is `nil`); since
/// then `[status, txHash, gasUsed, [log…]]`, so the receipts root commits to gas and logs and a
/// relay that replays a block must get them exactly.
public struct LocalChainReceipt: Sendable, Hashable {
    public var transactionHash: [UInt8]
    public var status: UInt8
    /// The gas the transaction used; `nil` in the two-field receipts of older blocks.
    public var gasUsed: UInt64?
    public var logs: [LocalChainLog]

    public init(transactionHash: [UInt8], status: UInt8, gasUsed: UInt64? = nil, logs: [LocalChainLog] = []) {
        self.transactionHash = transactionHash
        self.status = status
        self.gasUsed = gasUsed
        self.logs = logs
    }

    var item: RLPItem {
        guard let gasUsed else { return .list([.uint(UInt64(status)), .bytes(transactionHash)]) }
        return .list([.uint(UInt64(status)), .bytes(transactionHash), .uint(gasUsed), .list(logs.map(\.item))])
    }

    public var leaf: [UInt8] { RLP.encode(item) }

    static func decode(_ item: RLPItem) throws -> LocalChainReceipt {
        let fields = try item.list("a receipt")
        guard fields.count == 2 || fields.count == 4 else { throw ChainKitError(.invalidRLP, "a receipt has 2 or 4 fields") }
        let status = try fields[0].uint64("status")
        guard status <= 1 else { throw ChainKitError(.invalidRLP, "a receipt status is 0 or 1") }
        var receipt = LocalChainReceipt(transactionHash: try fields[1].bytes("transactionHash"), status: UInt8(status))
        if fields.count == 4 {
            receipt.gasUsed = try fields[2].uint64("gasUsed")
            receipt.logs = try fields[3].list("the logs").map(LocalChainLog.decode)
        }
        return receipt
    }
}
