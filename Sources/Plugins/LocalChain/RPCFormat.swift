import ChainKit
import Foundation

/// Ethereum JSON-RPC shapes: quantities as minimal `0x` hex, data as `0x` hex, and the block,
/// transaction and receipt objects that client libraries parse.
enum RPCFormat {
    static func quantity(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }
    static func quantity(_ value: UInt128) -> String { "0x" + String(value, radix: 16) }
    static func quantity(_ value: UInt256) -> String {
        value.high == 0
            ? quantity(value.low)
            : "0x" + String(value.high, radix: 16) + String(repeating: "0", count: 32 - String(value.low, radix: 16).count)
                + String(value.low, radix: 16)
    }

    static func parseQuantity(_ text: String) -> UInt64? {
        guard text.hasPrefix("0x"), text.count > 2, text.count <= 18 else { return nil }
        return UInt64(text.dropFirst(2), radix: 16)
    }

    /// A `0x` quantity of up to 256 bits (a value, a gas cap).
    static func parseQuantity256(_ text: String) -> UInt256? {
        guard text.hasPrefix("0x"), (3...66).contains(text.count) else { return nil }
        var digits = String(text.dropFirst(2))
        if digits.count % 2 == 1 { digits = "0" + digits }
        guard let bytes = try? Hex.decode("0x" + digits) else { return nil }
        return try? UInt256(bigEndian: bytes)
    }

    /// keccak-256 of RLP([]), the hash of an empty uncle list.
    static let emptyUnclesHash = Hex.encode(Keccak256.hash([0xC0]))

    static func transaction(raw: [UInt8], from: EthereumAddress, block: (hash: String, number: UInt64, index: Int)?) throws -> [String: Any] {
        let signed = try SignedEthereumTransaction.decode(raw)
        let t = signed.transaction
        var out: [String: Any] = [
            "hash": Hex.encode(Keccak256.hash(raw)),
            "from": from.checksummed,
            "to": t.to.map { $0.checksummed as Any } ?? NSNull(),
            "nonce": quantity(t.nonce),
            "value": quantity(t.value),
            "gas": quantity(t.gasLimit),
            "input": Hex.encode(t.data),
            "type": quantity(UInt64(t.envelope.rawValue)),
            "v": quantity(signed.v),
            "r": quantity(try UInt256(bigEndian: signed.signature.r)),
            "s": quantity(try UInt256(bigEndian: signed.signature.s)),
            "blockHash": block.map { $0.hash as Any } ?? NSNull(),
            "blockNumber": block.map { quantity($0.number) as Any } ?? NSNull(),
            "transactionIndex": block.map { quantity(UInt64($0.index)) as Any } ?? NSNull(),
        ]
        if let chainID = t.chainID { out["chainId"] = quantity(chainID) }
        switch t.envelope {
        case .legacy:
            out["gasPrice"] = quantity(t.gasPrice)
        case .accessList, .dynamicFee:
            out["yParity"] = quantity(UInt64(signed.signature.recoveryID))
            out["accessList"] = t.accessList.map { ["address": $0.address.checksummed, "storageKeys": $0.storageKeys.map { Hex.encode($0) }] }
            if t.envelope == .dynamicFee {
                out["maxFeePerGas"] = quantity(t.maxFeePerGas)
                out["maxPriorityFeePerGas"] = quantity(t.maxPriorityFeePerGas)
                out["gasPrice"] = quantity(effectiveGasPrice(t))
            } else {
                out["gasPrice"] = quantity(t.gasPrice)
            }
        }
        return out
    }

    /// What a transaction pays per gas: its gas price, or with EIP-1559 fees its tip capped by its
    /// fee cap (the base fee is zero).
    static func effectiveGasPrice(_ t: EthereumTransaction) -> UInt256 {
        t.envelope == .dynamicFee ? min(t.maxFeePerGas, t.maxPriorityFeePerGas) : t.gasPrice
    }

    /// The gas a receipt records (blocks from before contracts ran: 21000, all they could use).
    static func gasUsed(_ receipt: LocalChainReceipt) -> UInt64 { receipt.gasUsed ?? ValidatedTransaction.intrinsicGas }

    /// A sealed transaction's receipt, from its block's receipts (for the cumulative gas and the
    /// block-wide log indexes).
    static func receipt(_ t: ChainTransaction, blockHash: String, block: LocalChainBlock) throws -> [String: Any] {
        let tx = try SignedEthereumTransaction.decode(t.raw).transaction
        let receipts = block.receipts
        guard t.position < receipts.count else { throw ChainKitError(.invalidRLP, "the block holds no receipt at \(t.position)") }
        let receipt = receipts[t.position]
        let cumulative = receipts[...t.position].reduce(UInt64(0)) { $0 + gasUsed($1) }
        let firstLog = receipts[..<t.position].reduce(0) { $0 + $1.logs.count }
        let logs = receipt.logs.enumerated().map { index, entry in
            log(
                ChainLog(
                    blockNumber: t.blockNumber,
                    logIndex: firstLog + index,
                    transactionHash: t.hash,
                    transactionIndex: t.position,
                    address: entry.address,
                    topics: entry.topics.map { Hex.encode($0) },
                    data: entry.data
                ),
                blockHash: blockHash
            )
        }
        return [
            "transactionHash": t.hash,
            "transactionIndex": quantity(UInt64(t.position)),
            "blockHash": blockHash,
            "blockNumber": quantity(t.blockNumber),
            "from": t.sender.checksummed,
            "to": tx.to.map { $0.checksummed as Any } ?? NSNull(),
            "cumulativeGasUsed": quantity(cumulative),
            "gasUsed": quantity(gasUsed(receipt)),
            "effectiveGasPrice": quantity(effectiveGasPrice(tx)),
            // A creation's recipient is the address its contract got (when it succeeded).
            "contractAddress": tx.to == nil && t.status == 1 ? t.recipient.checksummed as Any : NSNull(),
            "logs": logs,
            "logsBloom": Hex.encode(receipt.bloom.bytes),
            "status": t.status == 1 ? "0x1" : "0x0",
            "type": quantity(UInt64(tx.envelope.rawValue)),
        ]
    }

    /// A log as `eth_getLogs` and receipts show it.
    static func log(_ log: ChainLog, blockHash: String) -> [String: Any] {
        [
            "address": log.address.checksummed,
            "topics": log.topics,
            "data": Hex.encode(log.data),
            "blockNumber": quantity(log.blockNumber),
            "blockHash": blockHash,
            "transactionHash": log.transactionHash,
            "transactionIndex": quantity(UInt64(log.transactionIndex)),
            "logIndex": quantity(UInt64(log.logIndex)),
            "removed": false,
        ]
    }

    static func block(
        _ stored: StoredBlock,
        _ block: LocalChainBlock,
        full: Bool,
        senders: [EthereumAddress],
        gasLimit: UInt64
    ) throws -> [String: Any] {
        var bloom = LogsBloom()
        for receipt in block.receipts { bloom.formUnion(receipt.bloom) }
        let header = block.header.header
        let transactions: [Any]
        if full {
            transactions = try block.transactions.enumerated().map { index, raw in
                try transaction(raw: raw, from: senders[index], block: (stored.hash, header.number, index))
            }
        } else {
            transactions = block.receipts.map { Hex.encode($0.transactionHash) }
        }
        return [
            "number": quantity(header.number),
            "hash": stored.hash,
            "parentHash": Hex.encode(header.parentHash),
            "nonce": "0x0000000000000000",
            "mixHash": Hex.encode([UInt8](repeating: 0, count: 32)),
            "sha3Uncles": emptyUnclesHash,
            "logsBloom": Hex.encode(bloom.bytes),
            "transactionsRoot": Hex.encode(header.transactionsRoot),
            "stateRoot": Hex.encode(header.stateRoot),
            "receiptsRoot": Hex.encode(header.receiptsRoot),
            "miner": header.validator.checksummed,
            "difficulty": "0x0",
            "totalDifficulty": "0x0",
            "extraData": Hex.encode(header.extraData),
            "size": quantity(UInt64(block.encoded.count)),
            "gasLimit": quantity(gasLimit),
            "gasUsed": quantity(block.receipts.reduce(UInt64(0)) { $0 + gasUsed($1) }),
            "baseFeePerGas": "0x0",
            "timestamp": quantity(header.timestamp),
            "transactions": transactions,
            "uncles": [Any](),
        ]
    }
}
