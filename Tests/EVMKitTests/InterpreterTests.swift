import ChainKit
import Testing

@testable import EVMKit

/// Small programs through a whole transaction: results, gas and refunds worked out by hand from the
/// Cancun schedule.
@Suite struct InterpreterTests {
    static let sender = try! Address(hex: "0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b")
    static let contract = try! Address(hex: "0xcccccccccccccccccccccccccccccccccccccccc")
    static let coinbase = try! Address(hex: "0x2adc25665018aa1fe0e6bc666dac8fc2697ff9ba")

    static let block = BlockEnvironment(
        number: 1,
        timestamp: 1000,
        coinbase: coinbase,
        gasLimit: 30_000_000,
        baseFee: U256(7),
        prevRandao: U256(0x20000)
    )

    /// Runs `code` at `contract` with a legacy call of `gas`; returns the receipt and the state after.
    static func run(
        _ code: [UInt8],
        storage: [U256: U256] = [:],
        data: [UInt8] = [],
        value: U256 = .zero,
        gas: UInt64 = 1_000_000
    ) throws -> (Receipt, InMemoryState) {
        var state = InMemoryState(
            accounts: [sender: Account(balance: U256(10).power(U256(18))), contract: Account(nonce: 1, code: code)],
            storage: [contract: storage]
        )
        let transaction = Transaction(
            kind: .legacy,
            sender: sender,
            to: contract,
            nonce: 0,
            gasLimit: gas,
            value: value,
            data: data,
            gasPrice: U256(10)
        )
        let receipt = try TransactionExecutor(block: block).execute(transaction, on: &state)
        return (receipt, state)
    }

    @Test("PUSH, ADD and a cold SSTORE of a new value cost 21000 + 11 + 22100")
    func addAndStore() throws {
        // PUSH1 2, PUSH1 3, ADD, PUSH0, SSTORE
        let (receipt, state) = try Self.run([0x60, 0x02, 0x60, 0x03, 0x01, 0x5F, 0x55])
        #expect(receipt.status)
        #expect(state.storage[Self.contract]?[.zero] == U256(5))
        let expected: Int = 21000 + 3 + 3 + 3 + 2 + 2100 + 20000
        #expect(receipt.gasUsed == UInt64(expected))
    }

    @Test("clearing a slot refunds 4800, within the cap of a fifth of the gas used")
    func clearingRefund() throws {
        // PUSH0, PUSH0, SSTORE: slot 0 from 1 to 0 (cold 2100 + reset 2900).
        let (receipt, state) = try Self.run([0x5F, 0x5F, 0x55], storage: [.zero: .one])
        #expect(receipt.status)
        #expect(state.storage[Self.contract] == nil)
        let used: Int = 21000 + 2 + 2 + 2100 + 2900
        let refund: Int = min(4800, used / 5)
        #expect(receipt.gasUsed == UInt64(used - refund))
    }

    @Test("REVERT undoes the frame's storage and returns its data and unused gas")
    func revert() throws {
        // PUSH1 1, PUSH0, SSTORE, PUSH1 0x2a, PUSH0, MSTORE, PUSH1 32, PUSH0, REVERT
        let code: [UInt8] = [0x60, 0x01, 0x5F, 0x55, 0x60, 0x2A, 0x5F, 0x52, 0x60, 0x20, 0x5F, 0xFD]
        let (receipt, state) = try Self.run(code)
        #expect(!receipt.status)
        #expect(receipt.haltReason == nil)
        #expect(state.storage[Self.contract] == nil)
        #expect(receipt.output == U256(42).bigEndianBytes)
        let expected: Int = 21000 + 3 + 2 + 22100 + 3 + 2 + 3 + 3 + 3 + 2
        #expect(receipt.gasUsed == UInt64(expected))
    }

    @Test("an invalid opcode consumes all the gas")
    func invalidOpcode() throws {
        let (receipt, _) = try Self.run([0xFE], gas: 50_000)
        #expect(!receipt.status)
        #expect(receipt.haltReason == .invalidOpcode(0xFE))
        #expect(receipt.gasUsed == 50_000)
    }

    @Test("memory expansion costs 3 per word plus words²/512")
    func memoryExpansion() throws {
        // PUSH0, PUSH2 0x1000, MSTORE: memory grows to 0x1020 bytes = 129 words.
        let (receipt, _) = try Self.run([0x5F, 0x61, 0x10, 0x00, 0x52])
        let words = 129
        let memoryCost: Int = 3 * words + words * words / 512
        let expected: Int = 21000 + 2 + 3 + 3 + memoryCost
        #expect(receipt.gasUsed == UInt64(expected))
    }

    @Test("transient storage lives for the transaction and TLOAD reads it back")
    func transientStorage() throws {
        // PUSH1 7, PUSH0, TSTORE, PUSH0, TLOAD, PUSH0, SSTORE
        let (receipt, state) = try Self.run([0x60, 0x07, 0x5F, 0x5D, 0x5F, 0x5C, 0x5F, 0x55])
        #expect(receipt.status)
        #expect(state.storage[Self.contract]?[.zero] == U256(7))
    }

    @Test("a jump into PUSH data is invalid")
    func jumpIntoPushData() throws {
        // PUSH1 3, JUMP, PUSH1 0x5b (the 0x5b at 3 is data)
        let (receipt, _) = try Self.run([0x60, 0x03, 0x56, 0x60, 0x5B], gas: 30_000)
        #expect(receipt.haltReason == .invalidJump)
    }

    @Test("the coinbase gets the priority fee only; the base fee is burnt")
    func feeSplit() throws {
        let (receipt, state) = try Self.run([0x00])
        #expect(receipt.gasUsed == 21000)
        let tip: UInt64 = 21000 * 3
        let paid: UInt64 = 21000 * 10
        #expect(state.accounts[Self.coinbase]?.balance == U256(tip))
        #expect(state.accounts[Self.sender]?.balance == U256(10).power(U256(18)) &- U256(paid))
    }

    @Test("a transaction with a wrong nonce is refused and changes nothing")
    func wrongNonce() throws {
        var state = InMemoryState(accounts: [Self.sender: Account(balance: U256(1_000_000_000))])
        let before = state
        let transaction = Transaction(kind: .legacy, sender: Self.sender, to: Self.contract, nonce: 5, gasLimit: 21000, gasPrice: U256(10))
        #expect(throws: EVMError.nonceMismatch(expected: 0, got: 5)) {
            try TransactionExecutor(block: Self.block).execute(transaction, on: &state)
        }
        #expect(state == before)
    }

    @Test("CREATE2's address follows EIP-1014's first example")
    func create2Address() throws {
        let address = Machine.create2Address(sender: .zero, salt: .zero, initcode: [0x00])
        #expect(address == (try Address(hex: "0x4d1a2e2bb4f88f0250f26ffff098b0b30b26bf38")))
    }

    @Test("a creation transaction deploys the returned code at the sender's nonce address")
    func createTransaction() throws {
        // Initcode: PUSH1 0x2a, PUSH0, MSTORE8, PUSH1 1, PUSH0, RETURN -> deploys 0x2a.
        var state = InMemoryState(accounts: [Self.sender: Account(balance: U256(10).power(U256(18)))])
        let transaction = Transaction(
            kind: .legacy,
            sender: Self.sender,
            to: nil,
            nonce: 0,
            gasLimit: 100_000,
            data: [0x60, 0x2A, 0x5F, 0x53, 0x60, 0x01, 0x5F, 0xF3],
            gasPrice: U256(10)
        )
        let receipt = try TransactionExecutor(block: Self.block).execute(transaction, on: &state)
        let address = Machine.createAddress(sender: Self.sender, nonce: 0)
        #expect(receipt.status)
        #expect(receipt.contractAddress == address)
        #expect(state.accounts[address] == Account(nonce: 1, code: [0x2A]))
        #expect(state.accounts[Self.sender]?.nonce == 1)
    }
}
