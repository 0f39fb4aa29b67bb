/// A local chain block header (hubd's proof-of-authority event chains).
///
/// Encoding (RLP list, in this order): `parentHash (32), number, timestamp (Unix seconds),
/// transactionsRoot (32), stateRoot (32), receiptsRoot (32), validator (20), chainId, extraData`.
/// The block hash is keccak-256 of that list; the validator signs the hash with secp256k1
/// (recoverable, low-s), and the sealed header appends `yParity, r, s`. A verifier recovers the
/// signer from the hash and compares it with the validator the genesis block names: unlike
/// LokaalPay, whose blocks carry an unsigned `miner` string anyone can copy, a block here cannot be
/// made without the validator's key.
public struct LocalChainHeader: Sendable, Hashable {
    public var parentHash: [UInt8]
    public var number: UInt64
    public var timestamp: UInt64
    public var transactionsRoot: [UInt8]
    public var stateRoot: [UInt8]
    public var receiptsRoot: [UInt8]
    public var validator: EthereumAddress
    public var chainID: UInt64
    public var extraData: [UInt8]

    public init(
        parentHash: [UInt8],
        number: UInt64,
        timestamp: UInt64,
        transactionsRoot: [UInt8],
        stateRoot: [UInt8],
        receiptsRoot: [UInt8],
        validator: EthereumAddress,
        chainID: UInt64,
        extraData: [UInt8]
    ) {
        self.parentHash = parentHash
        self.number = number
        self.timestamp = timestamp
        self.transactionsRoot = transactionsRoot
        self.stateRoot = stateRoot
        self.receiptsRoot = receiptsRoot
        self.validator = validator
        self.chainID = chainID
        self.extraData = extraData
    }

    var items: [RLPItem] {
        [
            .bytes(parentHash), .uint(number), .uint(timestamp), .bytes(transactionsRoot), .bytes(stateRoot), .bytes(receiptsRoot),
            .bytes(validator.bytes), .uint(chainID), .bytes(extraData),
        ]
    }

    /// keccak-256 of the RLP header: the block's hash, and what the validator signs.
    public var hash: [UInt8] { Keccak256.hash(RLP.encode(.list(items))) }

    public func sealed(privateKey: [UInt8]) throws -> SealedLocalChainHeader {
        SealedLocalChainHeader(header: self, signature: try Secp256k1.sign(hash: hash, privateKey: privateKey))
    }

    static func decode(_ items: [RLPItem]) throws -> LocalChainHeader {
        guard items.count == 9 else { throw ChainKitError(.invalidRLP, "a header has 9 fields, got \(items.count)") }
        func hash32(_ item: RLPItem, _ what: String) throws -> [UInt8] {
            let bytes = try item.bytes(what)
            guard bytes.count == 32 else { throw ChainKitError(.invalidRLP, "\(what) must be 32 bytes, got \(bytes.count)") }
            return bytes
        }
        return LocalChainHeader(
            parentHash: try hash32(items[0], "parentHash"),
            number: try items[1].uint64("number"),
            timestamp: try items[2].uint64("timestamp"),
            transactionsRoot: try hash32(items[3], "transactionsRoot"),
            stateRoot: try hash32(items[4], "stateRoot"),
            receiptsRoot: try hash32(items[5], "receiptsRoot"),
            validator: try EthereumAddress(bytes: try items[6].bytes("validator")),
            chainID: try items[7].uint64("chainId"),
            extraData: try items[8].bytes("extraData")
        )
    }
}

/// A header with the validator's signature.
public struct SealedLocalChainHeader: Sendable, Hashable {
    public var header: LocalChainHeader
    public var signature: Secp256k1.Signature

    public init(header: LocalChainHeader, signature: Secp256k1.Signature) {
        self.header = header
        self.signature = signature
    }

    public var hash: [UInt8] { header.hash }

    /// The address that signed the header (low-s required).
    public func signer() throws -> EthereumAddress {
        try EthereumAddress(publicKey: try Secp256k1.recover(hash: header.hash, signature: signature, requireLowS: true))
    }

    var items: [RLPItem] {
        header.items + [
            .uint(UInt64(signature.recoveryID)), .uint(try! UInt256(bigEndian: signature.r)), .uint(try! UInt256(bigEndian: signature.s)),
        ]
    }

    static func decode(_ items: [RLPItem]) throws -> SealedLocalChainHeader {
        guard items.count == 12 else { throw ChainKitError(.invalidRLP, "a sealed header has 12 fields, got \(items.count)") }
        let header = try LocalChainHeader.decode(Array(items[0..<9]))
        let parity = try items[9].uint64("yParity")
        guard parity <= 1 else { throw ChainKitError(.invalidSignature, "yParity must be 0 or 1") }
        let r = try items[10].uint256("r")
        let s = try items[11].uint256("s")
        guard !r.isZero, !s.isZero, r < Secp256k1.order, s < Secp256k1.order else {
            throw ChainKitError(.invalidSignature, "r and s must be in 1…n-1")
        }
        return SealedLocalChainHeader(
            header: header,
            signature: Secp256k1.Signature(r: r.bigEndianBytes, s: s.bigEndianBytes, recoveryID: UInt8(parity))
        )
    }
}

/// A whole block: the sealed header, the raw signed transactions and their receipts, and for a
/// genesis the record of the event it opens.
/// Encoded as `RLP([sealedHeader, [rawTx…], [receipt…]])` (see ``LocalChainReceipt``), with the record as a fourth
/// item in a genesis. The header's `extraData` then holds keccak-256 of the record: Ethereum
/// clients (web3.py among them) refuse a block whose `extraData` is longer than 32 bytes.
public struct LocalChainBlock: Sendable, Hashable {
    public var header: SealedLocalChainHeader
    public var transactions: [[UInt8]]
    public var receipts: [LocalChainReceipt]
    /// The genesis record (committed to by `extraData`); `nil` in other blocks.
    public var genesisRecord: [UInt8]?

    public init(header: SealedLocalChainHeader, transactions: [[UInt8]], receipts: [LocalChainReceipt], genesisRecord: [UInt8]? = nil) {
        self.header = header
        self.transactions = transactions
        self.receipts = receipts
        self.genesisRecord = genesisRecord
    }

    public var hash: [UInt8] { header.hash }

    public var encoded: [UInt8] {
        var parts: [RLPItem] = [
            .list(header.items), .list(transactions.map(RLPItem.bytes)),
            .list(receipts.map(\.item)),
        ]
        if let genesisRecord { parts.append(.bytes(genesisRecord)) }
        return RLP.encode(.list(parts))
    }

    public static func decode(_ bytes: [UInt8]) throws -> LocalChainBlock {
        let parts = try RLP.decode(bytes).list("a block")
        guard parts.count == 3 || parts.count == 4 else {
            throw ChainKitError(.invalidRLP, "a block has 3 parts (4 for a genesis), got \(parts.count)")
        }
        let header = try SealedLocalChainHeader.decode(try parts[0].list("the header"))
        let transactions = try parts[1].list("the transactions").map { try $0.bytes("a transaction") }
        let receipts = try parts[2].list("the receipts").map(LocalChainReceipt.decode)
        guard receipts.count == transactions.count else {
            throw ChainKitError(.invalidRLP, "\(transactions.count) transactions but \(receipts.count) receipts")
        }
        let record = parts.count == 4 ? try parts[3].bytes("the genesis record") : nil
        if record != nil && header.header.number != 0 { throw ChainKitError(.invalidRLP, "only a genesis carries a record") }
        return LocalChainBlock(header: header, transactions: transactions, receipts: receipts, genesisRecord: record)
    }

    /// Checks what a block proves by itself: the transactions and receipts match their roots,
    /// each receipt names its transaction, a genesis record matches `extraData`, and the signature
    /// recovers to `validator`. (The state
    /// root and the link to the parent need the chain: the caller checks those.)
    public func verifyContents(validator: EthereumAddress) throws {
        guard LocalChainRoots.transactions(transactions) == header.header.transactionsRoot else {
            throw ChainKitError(.invalidTransaction, "the transactions do not match the transactions root")
        }
        guard LocalChainRoots.receipts(receipts) == header.header.receiptsRoot else {
            throw ChainKitError(.invalidTransaction, "the receipts do not match the receipts root")
        }
        if let genesisRecord, Keccak256.hash(genesisRecord) != header.header.extraData {
            throw ChainKitError(.invalidTransaction, "the genesis record does not match the header's extraData")
        }
        for (raw, receipt) in zip(transactions, receipts) where Keccak256.hash(raw) != receipt.transactionHash {
            throw ChainKitError(.invalidTransaction, "a receipt names another transaction")
        }
        guard try header.signer() == validator else {
            throw ChainKitError(.invalidSignature, "the block is not signed by the chain's validator")
        }
    }
}
