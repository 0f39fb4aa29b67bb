import ChainKit
import EVMKit
import Foundation
import HubKernel

/// The JSON-RPC methods of contracts: calls and gas estimates run in EVMKit over the current
/// state (on the database's thread, inside one read, never changing anything), code, storage
/// and logs read from the chain's tables. Errors are worded as geth words them, so libraries
/// recognise them: a revert is code 3 `execution reverted: <reason>` with the revert data as
/// `data`.
extension EthereumRPC {
    /// Most logs one `eth_getLogs` returns; past it the call is refused, naming the cap, rather
    /// than answered in part.
    static let maxLogs = 10_000
    /// Most blocks one `eth_getLogs` range may span.
    static let maxLogBlockRange: UInt64 = 100_000

    /// A call object (`from`, `to`, `gas`, `value`, `data`/`input`) as the EVM runs it.
    struct CallRequest {
        var from: EthereumAddress
        var to: EthereumAddress?
        var gas: UInt64?
        var value: UInt256
        var data: [UInt8]

        init(_ object: [String: Any]) throws {
            func address(_ name: String) throws -> EthereumAddress? {
                guard let raw = object[name], !(raw is NSNull) else { return nil }
                guard let text = raw as? String, let address = try? EthereumAddress(text) else {
                    throw RPCError.invalidParams("\(name) must be an address (0x and 40 hex digits)")
                }
                return address
            }
            from = try address("from") ?? EthereumAddress(bytes: [UInt8](repeating: 0, count: 20))
            to = try address("to")
            if let gas = try EthereumRPC.quantityField(object, "gas") {
                guard gas.high == 0, gas.low <= UInt128(UInt64.max) else { throw RPCError.invalidParams("gas is too large") }
                self.gas = UInt64(gas.low)
            }
            value = try EthereumRPC.quantityField(object, "value") ?? .zero
            let input = object["input"] ?? object["data"]
            if let input, !(input is NSNull) {
                guard let text = input as? String, let bytes = try? Hex.decode(text) else {
                    throw RPCError.invalidParams("data must be 0x hex")
                }
                data = bytes
            } else {
                data = []
            }
        }
    }

    /// What running a call gave.
    struct CallOutcome {
        var receipt: Receipt?
        var error: EVMError?
    }

    /// Runs `request` over the current state with each gas limit of `gasLimits` (an estimate
    /// tries many; by default the call's `gas`, capped by the block gas limit), in one read:
    /// nothing is written, whatever the call does.
    func simulate(_ request: CallRequest, gasLimits: [UInt64]? = nil, chainID: UInt64) async throws -> [CallOutcome] {
        let now = context.clock.now()
        return try await context.database.read { connection -> [CallOutcome] in
            guard let chain = try LocalChainStore.chain(chainID, on: connection) else { throw RPCError(code: -32000, message: "no chain \(chainID)") }
            let reader = ContractReader(chainID: chainID, connection: connection, accounts: true)
            let state = ChainWorldState(accounts: [:], reader: reader) { _ in AccountID(rawValue: 0) }
            let number = chain.headNumber + 1
            let executor = TransactionExecutor(
                block: BlockEnvironment(
                    number: number,
                    timestamp: UInt64(max(Int64(now.nanoseconds / 1_000_000), chain.headTimeMs) / 1000),
                    coinbase: Address(chain.validator),
                    gasLimit: chain.blockGasLimit,
                    baseFee: .zero,
                    prevRandao: U256(bigEndian: try Hex.decode(chain.headHash, length: 32)),
                    chainID: U256(chainID),
                    blockHashes: try ContractStore.recentBlockHashes(chainID: chainID, before: number, on: connection)
                )
            )
            let nonce = reader.account(request.from)?.nonce ?? 0
            var outcomes: [CallOutcome] = []
            for gas in gasLimits ?? [request.gas.map { min($0, chain.blockGasLimit) } ?? chain.blockGasLimit] {
                let transaction = Transaction(
                    kind: .legacy,
                    sender: Address(request.from),
                    to: request.to.map(Address.init),
                    nonce: nonce,
                    gasLimit: gas,
                    value: U256(request.value),
                    data: request.data
                )
                do throws(EVMError) {
                    let (receipt, _) = try executor.execute(transaction, reading: state)
                    outcomes.append(CallOutcome(receipt: receipt))
                } catch {
                    outcomes.append(CallOutcome(error: error))
                }
            }
            try reader.check()
            return outcomes
        }
    }

    /// `eth_call`: the call's return data, or its revert as code 3.
    func ethCall(_ params: [Any], chainID: UInt64) async throws -> String {
        guard let object = params.first as? [String: Any] else { throw RPCError.invalidParams("eth_call takes a call object") }
        let request = try CallRequest(object)
        try await requireCurrentState(params, 1, chainID: chainID)
        let outcome = try await simulate(request, chainID: chainID)[0]
        let receipt = try Self.succeeded(outcome)
        return Hex.encode(receipt.output)
    }

    /// `eth_estimateGas`: the least gas with which the call succeeds, found by binary search
    /// between its intrinsic cost and the cap (its `gas`, else the block gas limit).
    func estimateGas(_ call: [String: Any], chainID: UInt64) async throws -> UInt64 {
        let request = try CallRequest(call)
        if request.value > .zero {
            let balance =
                try await context.database.read { try LocalChainStore.account(chainID: chainID, address: request.from, on: $0) }?.balance ?? 0
            guard request.value <= UInt256(balance) else { throw RPCError(code: -32000, message: "insufficient funds for transfer") }
        }
        // At the cap first: a call that fails with all the gas there is fails for its own reason.
        let atCap = try await simulate(request, chainID: chainID)[0]
        if let error = atCap.error, case .intrinsicGasTooLow = error {
            throw RPCError(code: -32000, message: "gas required exceeds allowance (\(request.gas ?? 0))")
        }
        let capped = try Self.succeeded(atCap)
        // The EVM's 63/64 rule and refunds make the gas used a floor, not the answer: search
        // from it up to the cap for the least limit that still succeeds.
        // Below the gas used at the cap nothing succeeds: the same path consumes at least that.
        // Most calls (a payment, a token transfer without refunds or inner calls) succeed with
        // exactly that: one more run settles them.
        var low = capped.gasUsed - 1
        var high = min(request.gas ?? .max, try await chain(chainID).blockGasLimit)
        if capped.gasUsed < high, try await simulate(request, gasLimits: [capped.gasUsed], chainID: chainID)[0].receipt?.status == true {
            return capped.gasUsed
        }
        low = max(low, capped.gasUsed)
        // Probe in rounds of up to 8 limits per read, narrowing [low, high] each round.
        while high - low > 1 {
            let (lo, hi) = (low, high)
            let probes = (1...8).map { lo + (hi - lo) * UInt64($0) / 9 }.filter { $0 > lo && $0 < hi }
            if probes.isEmpty { break }
            let outcomes = try await simulate(request, gasLimits: probes, chainID: chainID)
            var newLow = lo
            var newHigh = hi
            for (gas, outcome) in zip(probes, outcomes) {
                if outcome.receipt?.status == true {
                    newHigh = min(newHigh, gas)
                } else if gas < newHigh {
                    newLow = max(newLow, gas)
                }
            }
            if (newLow, newHigh) == (lo, hi) { break }
            (low, high) = (newLow, newHigh)
        }
        return high
    }

    /// The receipt of a call that succeeded, or the error geth answers for one that did not.
    static func succeeded(_ outcome: CallOutcome) throws -> Receipt {
        if let error = outcome.error {
            switch error {
            case .insufficientFunds: throw RPCError(code: -32000, message: "insufficient funds for gas * price + value")
            case .gasAllowanceExceeded: throw RPCError(code: -32000, message: "gas required exceeds allowance")
            default: throw RPCError(code: -32000, message: error.description)
            }
        }
        guard let receipt = outcome.receipt else { throw RPCError(code: -32603, message: "internal error") }
        if receipt.status { return receipt }
        if let halt = receipt.haltReason {
            // Out of gas, an invalid opcode…: no revert data to show.
            throw RPCError(code: -32000, message: halt == .outOfGas ? "out of gas" : "execution halted: \(halt)")
        }
        var message = "execution reverted"
        switch ABI.revertReason(receipt.output) {
        case .error(let text)?: message += ": " + text
        case .panic(let code)?: message += ": panic " + RPCFormat.quantity(code)
        case nil: break
        }
        throw RPCError(code: 3, message: message, data: Hex.encode(receipt.output))
    }

    /// `eth_getCode`: the code at an address (`0x` for none).
    func code(_ params: [Any], chainID: UInt64) async throws -> String {
        let address = try Self.address(params, 0)
        try await requireCurrentState(params, 1, chainID: chainID)
        return Hex.encode(try await context.database.read { try ContractStore.code(chainID: chainID, address: address, on: $0) })
    }

    /// `eth_getStorageAt`: one slot, as 32 bytes.
    func storage(_ params: [Any], chainID: UInt64) async throws -> String {
        let address = try Self.address(params, 0)
        guard params.count > 1, let text = params[1] as? String, let slot = RPCFormat.parseQuantity256(text) else {
            throw RPCError.invalidParams("parameter 1 must be a storage slot as a 0x quantity")
        }
        try await requireCurrentState(params, 2, chainID: chainID)
        let value = try await context.database.read { try ContractStore.slot(chainID: chainID, address: address, slot: U256(slot), on: $0) }
        return Hex.encode(value.bigEndianBytes)
    }

    /// `eth_getLogs`: the logs matching a filter object, at most ``maxLogs``.
    func logs(_ params: [Any], chainID: UInt64) async throws -> [Any] {
        guard let object = params.first as? [String: Any] else { throw RPCError.invalidParams("eth_getLogs takes a filter object") }
        let head = try await chain(chainID).headNumber
        var filter = try Self.logFilter(object, head: head)
        // A (valid) range that starts after the head holds nothing yet.
        if let from = object["fromBlock"], case .number(let n) = try Self.blockTag([from], 0), n > head { return [] }
        if let blockHash = object["blockHash"] {
            guard object["fromBlock"] == nil, object["toBlock"] == nil else {
                throw RPCError.invalidParams("a filter names either blockHash or fromBlock/toBlock, not both")
            }
            let hash = try Self.hash([blockHash], 0)
            guard let block = try await context.database.read({ try LocalChainStore.block(chainID: chainID, hash: hash, on: $0) }) else {
                throw RPCError(code: -32000, message: "unknown block")
            }
            filter.fromBlock = block.number
            filter.toBlock = block.number
        }
        return try await logs(filter, chainID: chainID)
    }

    /// The logs matching `filter`, formatted, at most ``maxLogs`` (more is refused, not cut).
    func logs(_ filter: LogFilter, chainID: UInt64) async throws -> [Any] {
        guard filter.toBlock - filter.fromBlock < Self.maxLogBlockRange else {
            throw RPCError(code: -32005, message: "a block range of more than \(Self.maxLogBlockRange) blocks; ask for a smaller one")
        }
        let found = try await context.database.read { connection -> ([ChainLog], [UInt64: String]) in
            let logs = try LogStore.logs(chainID: chainID, filter: filter, limit: Self.maxLogs + 1, on: connection)
            var hashes: [UInt64: String] = [:]
            for number in Set(logs.map(\.blockNumber)) {
                hashes[number] = try LocalChainStore.block(chainID: chainID, number: number, on: connection)?.hash
            }
            return (logs, hashes)
        }
        guard found.0.count <= Self.maxLogs else {
            throw RPCError(code: -32005, message: "query returned more than \(Self.maxLogs) results; ask for a smaller block range")
        }
        return found.0.map { RPCFormat.log($0, blockHash: found.1[$0.blockNumber] ?? "") }
    }

    /// A filter object's range, addresses and topics, checked. `fromBlock` and `toBlock` default
    /// to the head; a range past the head ends at it.
    static func logFilter(_ object: [String: Any], head: UInt64) throws -> LogFilter {
        func block(_ name: String) throws -> UInt64 {
            guard let raw = object[name], !(raw is NSNull) else { return head }
            switch try blockTag([raw], 0) {
            case .earliest: return 0
            case .latest, .pending, .safe, .finalized: return head
            case .number(let n): return min(n, head)
            }
        }
        let from = try block("fromBlock")
        let to = try block("toBlock")
        guard from <= to else { throw RPCError.invalidParams("fromBlock \(from) is after toBlock \(to)") }
        guard to - from < maxLogBlockRange else {
            throw RPCError(code: -32005, message: "a block range of more than \(maxLogBlockRange) blocks; ask for a smaller one")
        }
        var addresses: [EthereumAddress] = []
        switch object["address"] {
        case nil, is NSNull: break
        case let one as String: addresses = [try address([one], 0)]
        case let many as [Any]: addresses = try many.indices.map { try address(many, $0) }
        default: throw RPCError.invalidParams("address must be an address or a list of addresses")
        }
        var topics: [[String]] = []
        switch object["topics"] {
        case nil, is NSNull: break
        case let positions as [Any]:
            guard positions.count <= 4 else { throw RPCError.invalidParams("a log has at most 4 topics") }
            for position in positions {
                switch position {
                case is NSNull: topics.append([])
                case let one as String: topics.append([try hash([one], 0)])
                case let many as [Any]: topics.append(try many.indices.map { try hash(many, $0) })
                default: throw RPCError.invalidParams("a topic is a 32-byte hash, a list of them, or null")
                }
            }
        default: throw RPCError.invalidParams("topics must be a list")
        }
        return LogFilter(fromBlock: from, toBlock: to, addresses: addresses, topics: topics)
    }
}
