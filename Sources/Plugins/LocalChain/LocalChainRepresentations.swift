import ChainKit
import Foundation
import HubKernel

/// The JSON the REST API and the events carry (snake_case through the hub's encoder; amounts as
/// decimal strings of minor units; hashes and addresses as `0x` hex).
struct ChainRepresentation: Codable, Sendable, Equatable {
    struct Host: Codable, Sendable, Equatable {
        var latitude: String
        var longitude: String
        var radiusMeters: Int64
    }
    struct Head: Codable, Sendable, Equatable {
        var number: UInt64
        var hash: String
    }

    var chainId: UInt64
    var name: String
    var currencyName: String
    var symbol: String
    var decimals: UInt8
    var asset: String
    var blockIntervalMs: Int64
    var blockGasLimit: UInt64
    var host: Host?
    var status: String
    var organiserId: String
    var validator: String
    var genesisHash: String
    var head: Head
    var rpcPath: String

    init(_ chain: LocalChain) {
        chainId = chain.chainID
        name = chain.name
        currencyName = chain.currencyName
        symbol = chain.symbol
        decimals = chain.decimals
        asset = chain.asset.rawValue
        blockIntervalMs = chain.blockIntervalMs
        blockGasLimit = chain.blockGasLimit
        host = chain.host.map { Host(latitude: $0.latitude, longitude: $0.longitude, radiusMeters: $0.radiusMeters) }
        status = chain.status.rawValue
        organiserId = chain.organiserID
        validator = chain.validator.checksummed
        genesisHash = chain.genesisHash
        head = Head(number: chain.headNumber, hash: chain.headHash)
        rpcPath = "/v1/rails/localchain/chains/\(chain.chainID)/rpc"
    }
}

struct BlockRepresentation: Codable, Sendable, Equatable {
    var number: UInt64
    var hash: String
    var parentHash: String
    var timestamp: UInt64
    var transactionsRoot: String
    var stateRoot: String
    var receiptsRoot: String
    var validator: String
    var signature: String
    var transactionCount: Int
    var transactions: [String]
    var compressedBytes: Int

    init(_ stored: StoredBlock, _ block: LocalChainBlock) {
        let header = block.header.header
        number = header.number
        hash = stored.hash
        parentHash = Hex.encode(header.parentHash)
        timestamp = header.timestamp
        transactionsRoot = Hex.encode(header.transactionsRoot)
        stateRoot = Hex.encode(header.stateRoot)
        receiptsRoot = Hex.encode(header.receiptsRoot)
        validator = header.validator.checksummed
        let signature = block.header.signature
        self.signature = Hex.encode(signature.r + signature.s + [signature.recoveryID])
        transactionCount = block.transactions.count
        transactions = block.receipts.map { Hex.encode($0.transactionHash) }
        compressedBytes = stored.data.count
    }
}

struct TransactionRepresentation: Codable, Sendable, Equatable {
    var hash: String
    /// `pending` (in the pool), `success` or `failed` (sealed; failed moved nothing), or `dropped`
    /// (taken out of the pool unexecuted, see `reason`; its nonce is free again).
    var status: String
    /// Why a `dropped` transaction was dropped.
    var reason: String?
    var blockNumber: UInt64?
    var position: Int?
    var from: String
    var to: String
    var nonce: UInt64
    var value: String
    /// The call its data makes, where the selector is a well-known ERC-20/ERC-721 function
    /// (``KnownSignatures``); set by the explorer, absent in events.
    var call: DecodedABI?
    /// The logs it emitted, each with its decoded event where known: the explorer's answer for
    /// one sealed transaction only.
    var logs: [LogRepresentation]?

    init(_ t: ChainTransaction) {
        hash = t.hash
        status = t.status == 1 ? "success" : "failed"
        blockNumber = t.blockNumber
        position = t.position
        from = t.sender.checksummed
        to = t.recipient.checksummed
        nonce = t.nonce
        value = String(t.value)
    }

    init(dropped: DroppedTransaction) {
        self.init(pending: dropped.entry)
        status = "dropped"
        reason = dropped.reason
    }

    init(pending entry: PoolEntry) {
        hash = entry.hash
        status = "pending"
        from = entry.sender.checksummed
        to = entry.recipient.checksummed
        nonce = entry.nonce
        value = String(entry.value)
    }
}

struct AccountRepresentation: Codable, Sendable, Equatable {
    var address: String
    var nonce: UInt64
    var balance: String
    var ledgerAccountId: String
    /// Its storage trie's root and its code's keccak-256 (Ethereum's empty values when it has
    /// none): with `nonce` and `balance`, the account as the state root commits to it.
    var storageRoot: String
    var codeHash: String
    /// Bytes of contract code: 0 for an account a key holds.
    var codeSize: Int

    init(_ account: ChainAccount, codeSize: Int) {
        self.codeSize = codeSize
        address = account.address.checksummed
        nonce = account.nonce
        balance = String(account.balance)
        ledgerAccountId = account.ledgerAccountID.description
        storageRoot = Hex.encode(account.storageRoot ?? EthereumStateRoot.emptyStorageRoot)
        codeHash = Hex.encode(account.codeHash ?? EthereumStateRoot.emptyCodeHash)
    }
}

/// A log of a sealed transaction, as the explorer shows it.
struct LogRepresentation: Codable, Sendable, Equatable {
    /// Its position among all logs of its block.
    var logIndex: Int
    /// The contract that emitted it.
    var address: String
    var topics: [String]
    var data: String
    /// The event, where the first topic is a well-known ERC-20/ERC-721 event's.
    var event: DecodedABI?

    init(_ log: ChainLog) {
        logIndex = log.logIndex
        address = log.address.checksummed
        topics = log.topics
        data = Hex.encode(log.data)
        event = KnownSignatures.decodeEvent(topics: log.topics, data: log.data)
    }
}

/// JSON text for event data, with the API's conventions.
enum LocalChainJSON {
    static func text(_ value: some Encodable) throws -> String { try EventJSON.text(value) }

    /// A flat object of strings, as ``text(_:)`` wrote it.
    static func stringMap(_ text: String) throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
    }
}
