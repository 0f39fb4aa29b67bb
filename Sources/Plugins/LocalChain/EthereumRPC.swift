import ChainKit
import Foundation
import HubKernel
import Synchronization

/// The Ethereum JSON-RPC methods a wallet or library needs to pay on a local chain and to read
/// balances, blocks and receipts. Quantities are `0x` hex without leading zeros; fees are zero.
/// The chain keeps only current balances: a state query names `latest`, `pending`, `safe`,
/// `finalized` or the head's number (finality is instant, so these are one block); an older
/// block's state is refused with -32000 rather than answered wrongly.
struct EthereumRPC: Sendable {
    let context: PluginContext
    let intake: TransactionIntake
    let clientVersion: String

    typealias RPCError = JSONRPCEndpoint.RPCError

    /// Chains seen to exist. A chain is never deleted, so once seen it needs no read again: every
    /// call of a wallet would otherwise cost a read before its work.
    let knownChains = KnownChains()
    /// The log and block filters clients poll (per process, in memory).
    let filters = RPCFilters()

    func chainExists(_ chainID: UInt64) async throws -> Bool {
        if knownChains.contains(chainID) { return true }
        guard try await context.database.read({ try LocalChainStore.chain(chainID, on: $0) }) != nil else { return false }
        knownChains.insert(chainID)
        return true
    }

    /// One call's result. `socket` is the WebSocket connection it came on (`nil` over HTTP and
    /// in process): subscriptions live there.
    func call(_ method: String, _ params: [Any], chainID: UInt64, socket: RPCSocket? = nil) async throws -> Any {
        switch method {
        case "eth_chainId": return RPCFormat.quantity(chainID)
        case "net_version": return String(chainID)
        case "net_listening": return true
        case "web3_clientVersion": return clientVersion
        case "eth_syncing": return false
        case "eth_accounts": return [Any]()
        case "eth_gasPrice", "eth_maxPriorityFeePerGas": return "0x0"
        case "eth_blockNumber": return RPCFormat.quantity(try await chain(chainID).headNumber)
        case "eth_getBalance":
            let address = try Self.address(params, 0)
            try await requireCurrentState(params, 1, chainID: chainID)
            let account = try await context.database.read { try LocalChainStore.account(chainID: chainID, address: address, on: $0) }
            return RPCFormat.quantity(account?.balance ?? 0)
        case "eth_getTransactionCount":
            let address = try Self.address(params, 0)
            let tag = try Self.blockTag(params, 1)
            try await requireCurrentState(params, 1, chainID: chainID)
            return RPCFormat.quantity(try await nonce(of: address, chainID: chainID, pending: tag == .pending))
        case "eth_getCode": return try await code(params, chainID: chainID)
        case "eth_getStorageAt": return try await storage(params, chainID: chainID)
        case "eth_call": return try await ethCall(params, chainID: chainID)
        case "eth_getLogs": return try await logs(params, chainID: chainID)
        case "eth_getProof": return try await proof(params, chainID: chainID)
        case "eth_newFilter": return try await newFilter(params, chainID: chainID)
        case "eth_newBlockFilter": return try await newBlockFilter(chainID: chainID)
        case "eth_getFilterChanges": return try await filterChanges(params, chainID: chainID)
        case "eth_getFilterLogs": return try await filterLogs(params, chainID: chainID)
        case "eth_uninstallFilter": return try uninstallFilter(params, chainID: chainID)
        case "eth_subscribe", "eth_unsubscribe":
            guard let socket else {
                throw RPCError(code: -32601, message: "\(method) needs a WebSocket: open GET /v1/rails/localchain/chains/\(chainID)/rpc as ws://")
            }
            if method == "eth_subscribe" { return try await subscribe(params, chainID: chainID, socket: socket) }
            return try unsubscribe(params, socket: socket)
        case "eth_estimateGas":
            guard let call = params.first as? [String: Any] else { throw RPCError.invalidParams("eth_estimateGas takes a call object") }
            return RPCFormat.quantity(try await estimateGas(call, chainID: chainID))
        case "eth_feeHistory": return try await feeHistory(params, chainID: chainID)
        case "eth_sendRawTransaction":
            return try await intake.submit(try Self.rawTransaction(params), chainID: chainID).hash
        case "eth_getTransactionByHash": return try await transaction(Self.hash(params, 0), chainID: chainID) ?? NSNull()
        case "eth_getTransactionReceipt": return try await receipt(Self.hash(params, 0), chainID: chainID) ?? NSNull()
        case "eth_getBlockByNumber":
            let tag = try Self.blockTag(params, 0)
            let full = try Self.bool(params, 1)
            let head = try await chain(chainID).headNumber
            let number: UInt64
            switch tag {
            case .earliest: number = 0
            case .latest, .pending, .safe, .finalized: number = head
            case .number(let n): number = n
            }
            let stored = try await context.database.read { try LocalChainStore.block(chainID: chainID, number: number, on: $0) }
            guard let stored else { return NSNull() }
            return try await block(stored, full: full, chainID: chainID)
        case "eth_getBlockByHash":
            let hash = try Self.hash(params, 0)
            let full = try Self.bool(params, 1)
            let stored = try await context.database.read { try LocalChainStore.block(chainID: chainID, hash: hash, on: $0) }
            guard let stored else { return NSNull() }
            return try await block(stored, full: full, chainID: chainID)
        default:
            throw RPCError(code: -32601, message: "the method \(method) does not exist or is not available on this chain")
        }
    }

    /// Consecutive `eth_sendRawTransaction` calls of a batch (their `params`), as one intake
    /// batch: recovered in parallel, stored in one unit of work, in order. One result per call.
    func sendRawTransactions(_ calls: [[Any]], chainID: UInt64) async -> [Result<Any, any Error>] {
        var results = [Result<Any, any Error>](repeating: .failure(RPCError(code: -32603, message: "internal error")), count: calls.count)
        var raws: [[UInt8]] = []
        var positions: [Int] = []
        for (position, params) in calls.enumerated() {
            do {
                raws.append(try Self.rawTransaction(params))
                positions.append(position)
            } catch {
                results[position] = .failure(error)
            }
        }
        guard !raws.isEmpty else { return results }
        do {
            for (position, outcome) in zip(positions, try await intake.submit(raws, chainID: chainID)) {
                results[position] = outcome.map { $0.hash as Any }.mapError { $0 }
            }
        } catch {
            for position in positions { results[position] = .failure(error) }
        }
        return results
    }

    static func rawTransaction(_ params: [Any]) throws -> [UInt8] {
        guard let text = params.first as? String, let raw = try? Hex.decode(text) else {
            throw RPCError.invalidParams("eth_sendRawTransaction takes the signed transaction as 0x hex")
        }
        return raw
    }

    // MARK: State

    func chain(_ chainID: UInt64) async throws -> LocalChain {
        guard let chain = try await context.database.read({ try LocalChainStore.chain(chainID, on: $0) }) else {
            throw RPCError(code: -32000, message: "no chain \(chainID)")
        }
        return chain
    }

    func requireCurrentState(_ params: [Any], _ index: Int, chainID: UInt64) async throws {
        switch try Self.blockTag(params, index) {
        case .latest, .pending, .safe, .finalized: return
        case .earliest:
            throw RPCError(code: -32000, message: "historical state is not kept: ask for latest")
        case .number(let n):
            guard n == (try await chain(chainID).headNumber) else {
                throw RPCError(code: -32000, message: "historical state is not kept: ask for latest")
            }
        }
    }

    /// The next nonce: sealed, or with `pending`, after the consecutive transactions waiting.
    func nonce(of address: EthereumAddress, chainID: UInt64, pending: Bool) async throws -> UInt64 {
        try await context.database.read { connection in
            var next = try LocalChainStore.account(chainID: chainID, address: address, on: connection)?.nonce ?? 0
            if pending {
                for entry in try LocalChainStore.pool(chainID: chainID, sender: address, on: connection) where entry.nonce == next { next += 1 }
            }
            return next
        }
    }

    func feeHistory(_ params: [Any], chainID: UInt64) async throws -> Any {
        let count: UInt64
        if let number = params.first as? NSNumber {
            count = number.uint64Value
        } else if let text = params.first as? String, let n = RPCFormat.parseQuantity(text) {
            count = n
        } else {
            throw RPCError.invalidParams("eth_feeHistory takes a block count")
        }
        let percentiles = params.count > 2 ? (params[2] as? [Any] ?? []) : []
        let head = try await chain(chainID).headNumber
        let blocks = min(max(count, 0), 1024, head + 1)
        return [
            "oldestBlock": RPCFormat.quantity(head + 1 - blocks),
            "baseFeePerGas": Array(repeating: "0x0", count: Int(blocks) + 1),
            "gasUsedRatio": Array(repeating: 0.0, count: Int(blocks)),
            "reward": Array(repeating: Array(repeating: "0x0", count: percentiles.count), count: Int(blocks)),
        ] as [String: Any]
    }

    // MARK: Transactions and blocks

    func transaction(_ hash: String, chainID: UInt64) async throws -> [String: Any]? {
        let (sealed, pending, blockHash) = try await context.database.read { connection -> (ChainTransaction?, PoolEntry?, String?) in
            if let sealed = try LocalChainStore.transaction(chainID: chainID, hash: hash, on: connection) {
                let block = try LocalChainStore.block(chainID: chainID, number: sealed.blockNumber, on: connection)
                return (sealed, nil, block?.hash)
            }
            return (nil, try LocalChainStore.poolEntry(chainID: chainID, hash: hash, on: connection), nil)
        }
        if let sealed, let blockHash {
            return try RPCFormat.transaction(raw: sealed.raw, from: sealed.sender, block: (blockHash, sealed.blockNumber, sealed.position))
        }
        if let pending { return try RPCFormat.transaction(raw: pending.raw, from: pending.sender, block: nil) }
        return nil
    }

    func receipt(_ hash: String, chainID: UInt64) async throws -> [String: Any]? {
        let found = try await context.database.read { connection -> (ChainTransaction, StoredBlock)? in
            guard let sealed = try LocalChainStore.transaction(chainID: chainID, hash: hash, on: connection),
                let block = try LocalChainStore.block(chainID: chainID, number: sealed.blockNumber, on: connection)
            else { return nil }
            return (sealed, block)
        }
        guard let (sealed, stored) = found else { return nil }
        return try RPCFormat.receipt(sealed, blockHash: stored.hash, block: try stored.decoded())
    }

    func block(_ stored: StoredBlock, full: Bool, chainID: UInt64) async throws -> [String: Any] {
        let block = try stored.decoded()
        let senders: [EthereumAddress]
        if full {
            senders = try await context.database.read { try LocalChainStore.transactions(chainID: chainID, block: stored.number, on: $0) }
                .map(\.sender)
        } else {
            senders = []
        }
        return try RPCFormat.block(stored, block, full: full, senders: senders, gasLimit: try await chain(chainID).blockGasLimit)
    }

    // MARK: Parameters

    enum BlockTag: Equatable {
        case latest, pending, safe, finalized, earliest
        case number(UInt64)
    }

    static func blockTag(_ params: [Any], _ index: Int) throws -> BlockTag {
        guard index < params.count else { return .latest }
        if let object = params[index] as? [String: Any], let number = object["blockNumber"] as? String {
            return try blockTag([number], 0)
        }
        guard let text = params[index] as? String else { throw RPCError.invalidParams("a block is a tag or a 0x number") }
        switch text {
        case "latest": return .latest
        case "pending": return .pending
        case "safe": return .safe
        case "finalized": return .finalized
        case "earliest": return .earliest
        default:
            guard let number = RPCFormat.parseQuantity(text) else { throw RPCError.invalidParams("'\(text)' is not a block tag or 0x number") }
            return .number(number)
        }
    }

    /// A `0x` quantity member of a call object, `nil` when absent.
    static func quantityField(_ call: [String: Any], _ name: String) throws -> UInt256? {
        guard let raw = call[name] else { return nil }
        guard let text = raw as? String, let value = RPCFormat.parseQuantity256(text) else {
            throw RPCError.invalidParams("\(name) must be a 0x hex quantity")
        }
        return value
    }

    static func address(_ params: [Any], _ index: Int) throws -> EthereumAddress {
        guard index < params.count, let text = params[index] as? String, let address = try? EthereumAddress(text) else {
            throw RPCError.invalidParams("parameter \(index) must be an address (0x and 40 hex digits)")
        }
        return address
    }

    static func hash(_ params: [Any], _ index: Int) throws -> String {
        guard index < params.count, let text = params[index] as? String, let bytes = try? Hex.decode(text, length: 32) else {
            throw RPCError.invalidParams("parameter \(index) must be a 32-byte hash as 0x hex")
        }
        return Hex.encode(bytes)
    }

    static func bool(_ params: [Any], _ index: Int) throws -> Bool {
        guard index < params.count else { return false }
        guard let value = params[index] as? Bool else { throw RPCError.invalidParams("parameter \(index) must be true or false") }
        return value
    }
}

/// The ids of chains known to exist (a chain is never deleted).
final class KnownChains: Sendable {
    private let ids = Mutex(Set<UInt64>())

    func contains(_ chainID: UInt64) -> Bool { ids.withLock { $0.contains(chainID) } }
    func insert(_ chainID: UInt64) { _ = ids.withLock { $0.insert(chainID) } }
}
