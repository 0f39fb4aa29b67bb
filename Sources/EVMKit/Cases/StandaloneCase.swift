import ChainKit

/// Transactions with everything they run over, written so that another EVM can run the same thing:
/// the differential tests feed these to EVMKit (`hubd evm run`) and to revm (pyrevm) and compare the
/// ``StandaloneOutcome``s. Numbers that can exceed 64 bits are `0x` hex strings, byte strings are
/// `0x` hex, addresses lowercase `0x` hex.
public struct StandaloneCase: Codable, Sendable, Hashable {
    public struct AccountState: Codable, Sendable, Hashable {
        public var balance: String
        public var nonce: UInt64
        public var code: String
        /// Slot to value, both hex.
        public var storage: [String: String]

        public init(balance: String = "0x0", nonce: UInt64 = 0, code: String = "0x", storage: [String: String] = [:]) {
            self.balance = balance
            self.nonce = nonce
            self.code = code
            self.storage = storage
        }
    }

    public struct Block: Codable, Sendable, Hashable {
        public var number: UInt64
        public var timestamp: UInt64
        public var coinbase: String
        public var gasLimit: UInt64
        public var baseFee: String
        public var prevRandao: String
        public var chainId: UInt64
    }

    public struct Tx: Codable, Sendable, Hashable {
        public var sender: String
        /// `nil` creates a contract.
        public var to: String?
        public var nonce: UInt64
        public var value: String
        public var data: String
        public var gasLimit: UInt64
        /// A legacy gas price (the differential runs use zero: pyrevm's calls charge no fees).
        public var gasPrice: String
    }

    public var name: String
    public var pre: [String: AccountState]
    public var block: Block
    /// Run in order, each over the state the one before left.
    public var txs: [Tx]

    /// Runs the transactions on an ``InMemoryState`` built from `pre`.
    /// - Throws: ``EVMError/invalidInput(_:)`` when a field is malformed. A transaction the engine
    ///   refuses is an outcome (status `invalid`), not an error.
    public func run() throws(EVMError) -> StandaloneOutcome {
        var state = try preState()
        let executor = TransactionExecutor(block: try blockEnvironment())
        var results: [StandaloneOutcome.TxResult] = []
        var blockGasUsed: UInt64 = 0
        for transaction in try transactions() {
            do {
                let receipt = try executor.execute(transaction, on: &state, blockGasUsed: blockGasUsed)
                blockGasUsed += receipt.gasUsed
                results.append(StandaloneOutcome.TxResult(receipt))
            } catch {
                results.append(StandaloneOutcome.TxResult(status: .invalid, error: error.description))
            }
        }
        return StandaloneOutcome(name: name, results: results, accounts: StandaloneOutcome.accounts(of: state))
    }

    /// `pre` as a state.
    public func preState() throws(EVMError) -> InMemoryState {
        var state = InMemoryState()
        for (text, account) in pre {
            let address = try Address(hex: text)
            state.accounts[address] = Account(
                nonce: account.nonce,
                balance: try U256(hex: account.balance),
                code: try Self.bytes(account.code)
            )
            var slots: [U256: U256] = [:]
            for (slot, value) in account.storage {
                let word = try U256(hex: value)
                if !word.isZero { slots[try U256(hex: slot)] = word }
            }
            if !slots.isEmpty { state.storage[address] = slots }
        }
        return state
    }

    /// `state` written as `pre` (the inverse of ``preState()``), to hand a state to another engine.
    public static func accounts(of state: InMemoryState) -> [String: AccountState] {
        var accounts: [String: AccountState] = [:]
        for (address, account) in state.accounts {
            let slots = state.storage[address] ?? [:]
            accounts[address.description] = AccountState(
                balance: account.balance.hexString,
                nonce: account.nonce,
                code: Hex.encode(account.code),
                storage: Dictionary(uniqueKeysWithValues: slots.map { ($0.key.hexString, $0.value.hexString) })
            )
        }
        return accounts
    }

    public func blockEnvironment() throws(EVMError) -> BlockEnvironment {
        BlockEnvironment(
            number: block.number,
            timestamp: block.timestamp,
            coinbase: try Address(hex: block.coinbase),
            gasLimit: block.gasLimit,
            baseFee: try U256(hex: block.baseFee),
            prevRandao: try U256(hex: block.prevRandao),
            chainID: U256(block.chainId)
        )
    }

    public func transactions() throws(EVMError) -> [Transaction] {
        var transactions: [Transaction] = []
        for tx in txs {
            transactions.append(
                Transaction(
                    kind: .legacy,
                    sender: try Address(hex: tx.sender),
                    to: try tx.to.map { text throws(EVMError) in try Address(hex: text) },
                    nonce: tx.nonce,
                    gasLimit: tx.gasLimit,
                    value: try U256(hex: tx.value),
                    data: try Self.bytes(tx.data),
                    gasPrice: try U256(hex: tx.gasPrice)
                )
            )
        }
        return transactions
    }

    static func bytes(_ text: String) throws(EVMError) -> [UInt8] {
        do {
            return try Hex.decode(text)
        } catch {
            throw EVMError.invalidInput("'\(text.prefix(40))' is not hex")
        }
    }
}

/// What a ``StandaloneCase`` did, in a form two engines can be compared by: equal outcomes mean the
/// same status, return data, gas used and logs for every transaction, and the same post state.
/// `error` is informative only (engines word their halt reasons differently) and is left out of
/// ``agrees(with:)``.
public struct StandaloneOutcome: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable {
        case success, revert, halt
        /// The engine refused the transaction before running it.
        case invalid
    }

    public struct LogEntry: Codable, Sendable, Hashable {
        public var address: String
        public var topics: [String]
        public var data: String
    }

    /// An account of the post state. Empty accounts (EIP-161) without storage are left out, so an
    /// engine that keeps them around and one that deletes them compare equal.
    public struct AccountEntry: Codable, Sendable, Hashable {
        public var balance: String
        public var nonce: UInt64
        /// keccak256 of the code: what two engines are compared by (revm hands back padded code).
        public var codeHash: String
        /// The code itself, so the state can seed the next case (a chain of transactions run one at
        /// a time). Left out of comparisons, and of the expected outcomes in regression fixtures.
        public var code: String?
        /// Non-zero slots only.
        public var storage: [String: String]
    }

    /// What one transaction did.
    public struct TxResult: Codable, Sendable, Hashable {
        public var status: Status
        public var output: String = "0x"
        public var gasUsed: UInt64 = 0
        public var logs: [LogEntry] = []
        public var contractAddress: String?
        public var error: String?

        init(status: Status, error: String?) {
            self.status = status
            self.error = error
        }

        init(_ receipt: Receipt) {
            status = receipt.status ? .success : receipt.haltReason == nil ? .revert : .halt
            output = Hex.encode(receipt.output)
            gasUsed = receipt.gasUsed
            logs = receipt.logs.map { LogEntry(address: $0.address.description, topics: $0.topics.map(\.hexString), data: Hex.encode($0.data)) }
            contractAddress = receipt.contractAddress?.description
            error = receipt.haltReason?.description
        }
    }

    public var name: String
    public var results: [TxResult]
    /// The state after the last transaction.
    public var accounts: [String: AccountEntry]

    /// Equal in everything but the wording of the errors and the code itself (its hash is compared).
    public func agrees(with other: StandaloneOutcome) -> Bool {
        comparable == other.comparable
    }

    /// The outcome without what ``agrees(with:)`` ignores (and without the name).
    public var comparable: StandaloneOutcome {
        var copy = self
        copy.name = ""
        for index in copy.results.indices { copy.results[index].error = nil }
        for address in copy.accounts.keys { copy.accounts[address]?.code = nil }
        return copy
    }

    static func accounts(of state: InMemoryState) -> [String: AccountEntry] {
        var entries: [String: AccountEntry] = [:]
        for (address, account) in state.accounts {
            let slots = state.storage[address] ?? [:]
            if account.isEmpty && slots.isEmpty { continue }
            entries[address.description] = AccountEntry(
                balance: account.balance.hexString,
                nonce: account.nonce,
                codeHash: Hex.encode(Keccak256.hash(account.code)),
                code: Hex.encode(account.code),
                storage: Dictionary(uniqueKeysWithValues: slots.map { ($0.key.hexString, $0.value.hexString) })
            )
        }
        return entries
    }
}
