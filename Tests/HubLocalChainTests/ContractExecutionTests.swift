import ChainKit
import EVMKit
import Foundation
import HubKernel
import Testing

@testable import HubLocalChain

/// What a block does when its transactions run in the EVM: contracts created and called, storage
/// and logs, reverts and out-of-gas included as failed, the block gas limit, and every balance
/// change mirrored as ledger movements. Pure: no database (code and storage are read from the
/// previous plan's changes).
@Suite("Local chain: contract execution")
struct ContractExecutionTests {
    static let chainID: UInt64 = 777
    static let validator = try! EthereumAddress("0x00000000000000000000000000000000000000aa")
    static let issuance = AccountID(rawValue: 42)
    static let aliceKey = [UInt8](repeating: 0x11, count: 32)
    static let bobKey = [UInt8](repeating: 0x22, count: 32)
    static let alice = address(aliceKey)
    static let bob = address(bobKey)
    static let carol = try! EthereumAddress("0x000000000000000000000000000000000000c0c0")

    static func address(_ key: [UInt8]) -> EthereumAddress { try! EthereumAddress(publicKey: try! Secp256k1.publicKey(privateKey: key)) }

    /// Stores its calldata word in slot 0 and logs topic 42; reverts when the word is zero.
    static let storerRuntime = try! Hex.decode("0x6000358015601357600055602a60006000a1005b60006000fd")
    /// Sends 5 to the address in calldata word 0 and 5 to the one in word 1.
    static let splitterRuntime = try! Hex.decode("0x600060006000600060056000355af150600060006000600060056020355af15000")
    /// SELFDESTRUCT to the address in calldata word 0.
    static let destructRuntime = try! Hex.decode("0x600035ff")

    /// Initcode that returns `runtime` as the contract's code.
    static func initcode(_ runtime: [UInt8]) -> [UInt8] {
        [0x60, UInt8(runtime.count), 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, UInt8(runtime.count), 0x60, 0x00, 0xf3] + runtime
    }

    static func word(_ address: EthereumAddress) -> [UInt8] { [UInt8](repeating: 0, count: 12) + address.bytes }

    static func entry(
        _ key: [UInt8],
        nonce: UInt64,
        to: EthereumAddress?,
        value: UInt64 = 0,
        data: [UInt8] = [],
        gas: UInt64 = 200_000,
        gasPrice: UInt64 = 0,
        envelope: EthereumTransaction.Envelope = .legacy,
        seq: Int64 = 0
    ) throws -> PoolEntry {
        let raw = try EthereumTransaction(
            envelope: envelope,
            chainID: chainID,
            nonce: nonce,
            gasPrice: envelope == .dynamicFee ? .zero : UInt256(gasPrice),
            maxPriorityFeePerGas: UInt256(gasPrice),
            maxFeePerGas: UInt256(gasPrice),
            gasLimit: gas,
            to: to,
            value: UInt256(value),
            data: data
        ).signed(privateKey: key).raw
        let tx = try ValidatedTransaction.validate(raw, chainID: chainID)
        return PoolEntry(seq: seq, hash: tx.hashHex, sender: tx.sender, recipient: tx.recipient, nonce: tx.nonce, value: tx.value, raw: raw)
    }

    /// A grant: the validator's path runs no code, so its raw is never decoded.
    static func grant(_ to: EthereumAddress, _ amount: UInt128, nonce: UInt64) -> PoolEntry {
        PoolEntry(
            seq: 0,
            hash: Hex.encode(Keccak256.hash(Array("grant\(nonce)".utf8))),
            sender: validator,
            recipient: to,
            nonce: nonce,
            value: amount,
            raw: []
        )
    }

    /// Runs `pool` as one block over `state` and the contracts of `before` (plans applied in order).
    static func block(
        _ pool: [PoolEntry],
        after before: [BlockExecutor.Plan] = [],
        state: [EthereumAddress: ChainAccount]? = nil,
        gasLimit: UInt64 = 30_000_000
    ) -> BlockExecutor.Plan {
        var code: [EthereumAddress: [UInt8]] = [:]
        var storage: [EthereumAddress: [U256: U256]] = [:]
        for plan in before {
            for address in plan.contracts.clearedStorage { storage[address] = nil }
            for (address, new) in plan.contracts.code { code[address] = new }
            for (address, slots) in plan.contracts.storage {
                for (slot, value) in slots { storage[address, default: [:]][slot] = value }
            }
        }
        let reader = ContractReader(
            code: { code[$0] ?? [] },
            slot: { storage[$0]?[$1] ?? .zero },
            hasStorage: { storage[$0]?.values.contains { !$0.isZero } ?? false },
            allSlots: { storage[$0] ?? [:] }
        )
        return BlockExecutor.plan(
            pool: pool,
            state: state ?? before.last?.state ?? [:],
            contracts: reader,
            chainID: chainID,
            validator: validator,
            issuanceAccount: issuance,
            limit: 100,
            block: BlockExecutor.Block(number: UInt64(before.count + 1), timestamp: 1_700_000_000, gasLimit: gasLimit)
        )
    }

    func ledger(_ plan: BlockExecutor.Plan, _ address: EthereumAddress) -> AccountID { plan.state[address]!.ledgerAccountID }

    @Test("payments: nonces in order (gaps wait), balances checked at execution, recipients created, the validator issues")
    func payments() throws {
        let b = try EthereumAddress("0x00000000000000000000000000000000000000b1")
        let pool = [
            try Self.entry(Self.aliceKey, nonce: 1, to: b, value: 30, gas: 21_000, seq: 1),  // arrives before nonce 0: waits, then follows it
            Self.grant(Self.alice, 100, nonce: 0),
            try Self.entry(Self.aliceKey, nonce: 0, to: b, value: 50, gas: 21_000, seq: 3),
            try Self.entry(Self.aliceKey, nonce: 2, to: b, value: 500, gas: 21_000, seq: 4),  // more than alice has: fails, nonce used
            try Self.entry(Self.bobKey, nonce: 5, to: Self.alice, value: 1, gas: 21_000, seq: 5),  // gap: waits
        ]
        let plan = Self.block(pool)
        #expect(plan.included.map(\.entry.nonce) == [0, 0, 1, 2])
        #expect(plan.included.map(\.status) == [1, 1, 1, 0])
        #expect(plan.included.map(\.gasUsed) == [21_000, 21_000, 21_000, 0])
        #expect(plan.state[Self.alice]?.balance == 20)
        #expect(plan.state[Self.alice]?.nonce == 3)
        #expect(plan.state[b]?.balance == 80)
        #expect(plan.state[Self.validator]?.balance == 0)
        #expect(plan.state[Self.validator]?.ledgerAccountID == Self.issuance)
        #expect(Set(plan.created) == [Self.validator, Self.alice, b])
        #expect(plan.gasUsed == 63_000)
        let transfers = BlockExecutor.ledgerTransfers(plan, asset: AssetCode("EVT-1")!, chainID: 1)
        #expect(transfers.count == 3)
        #expect(transfers[0].action == .post(debit: Self.issuance, credit: ledger(plan, Self.alice), amount: 100, asset: AssetCode("EVT-1")!))
        #expect(transfers[1].id == LocalChainIDs.transfer(transactionHash: try Hex.decode(pool[2].hash)))
        #expect(transfers[1].action == .post(debit: ledger(plan, Self.alice), credit: ledger(plan, b), amount: 50, asset: AssetCode("EVT-1")!))
    }

    @Test("a contract is created, called (storage, logs), and a reverting call is included with status 0 and its gas")
    func createAndCall() throws {
        let deploy = try Self.entry(Self.aliceKey, nonce: 0, to: nil, data: Self.initcode(Self.storerRuntime))
        let contract = ValidatedTransaction.contractAddress(sender: Self.alice, nonce: 0)
        #expect(deploy.recipient == contract)
        let first = Self.block([deploy])
        #expect(first.included.first?.status == 1)
        #expect(first.included.first?.contractAddress == contract)
        #expect(first.contracts.code[contract] == Self.storerRuntime)
        #expect(first.state[contract]?.nonce == 1)
        #expect(first.created.contains(contract))
        #expect(first.movements.isEmpty)

        let store = try Self.entry(Self.aliceKey, nonce: 1, to: contract, data: U256(7).bigEndianBytes)
        let revert = try Self.entry(Self.aliceKey, nonce: 2, to: contract, data: U256.zero.bigEndianBytes)
        let second = Self.block([store, revert], after: [first])
        #expect(second.included.map(\.status) == [1, 0])
        #expect(second.contracts.storage[contract]?[.zero] == U256(7))
        #expect(second.included[0].logs == [LocalChainLog(address: contract, topics: [U256(42).bigEndianBytes], data: [])])
        #expect(second.included[1].logs.isEmpty)
        #expect(second.included[1].gasUsed > 21_000 && second.included[1].gasUsed < 200_000)
        #expect(second.state[Self.alice]?.nonce == 3)
        // The receipt commits to gas and logs.
        #expect(second.included[0].receipt.gasUsed == second.included[0].gasUsed)
        #expect(second.gasUsed == second.included[0].gasUsed + second.included[1].gasUsed)
    }

    @Test("bad deployments and calls: a reverting constructor, code starting with 0xEF, calldata to an address without code")
    func badDeploymentsAndCalls() throws {
        let funded = Self.block([Self.grant(Self.alice, 100, nonce: 0)])
        // PUSH1 0 PUSH1 0 REVERT: the constructor reverts; value sent with it stays with the sender.
        let reverting = try Self.entry(Self.aliceKey, nonce: 0, to: nil, value: 40, data: [0x60, 0x00, 0x60, 0x00, 0xfd])
        // Returns one byte 0xEF as code (EIP-3541 refuses it).
        let efCode = try Self.entry(Self.aliceKey, nonce: 1, to: nil, data: [0x60, 0xef, 0x60, 0x00, 0x53, 0x60, 0x01, 0x60, 0x00, 0xf3])
        // Calldata to an address with no code: a plain transfer that also pays for its data.
        let toNothing = try Self.entry(Self.aliceKey, nonce: 2, to: Self.carol, value: 10, data: [1, 2, 3])
        let plan = Self.block([reverting, efCode, toNothing], after: [funded])
        #expect(plan.included.map(\.status) == [0, 0, 1])
        #expect(plan.included.allSatisfy { $0.contractAddress == nil })
        #expect(plan.contracts.code.isEmpty && plan.contracts.storage.isEmpty)
        #expect(plan.included[2].gasUsed == 21_000 + 3 * 16)
        #expect(plan.state[Self.alice]?.balance == 90)
        #expect(plan.state[Self.alice]?.nonce == 3)
        #expect(plan.state[Self.carol]?.balance == 10)
        #expect(plan.movements.map(\.amount) == [10])
        // The addresses the failed creations would have had hold nothing.
        for nonce: UInt64 in [0, 1] {
            let address = ValidatedTransaction.contractAddress(sender: Self.alice, nonce: nonce)
            #expect((plan.state[address]?.balance ?? 0) == 0 && (plan.state[address]?.nonce ?? 0) == 0)
        }
    }

    @Test("the contract address of a creation is Ethereum's (a known vector)")
    func contractAddress() throws {
        // keccak(RLP([sender, nonce]))[12:], e.g. the first contract of 0x6ac7…dbf0.
        let sender = try EthereumAddress("0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0")
        #expect(ValidatedTransaction.contractAddress(sender: sender, nonce: 0) == (try EthereumAddress("0xcd234a471b72ba2f1ccf0a70fcaba648a5eecd8d")))
        #expect(ValidatedTransaction.contractAddress(sender: sender, nonce: 1) == (try EthereumAddress("0x343c43a37d37dff08ae8c4a11544c718abb4fcf8")))
    }

    @Test("out of gas: the whole gas limit is used, nothing created, nonce used")
    func outOfGas() throws {
        let deploy = try Self.entry(Self.aliceKey, nonce: 0, to: nil, data: Self.initcode(Self.storerRuntime), gas: 57_000)
        let plan = Self.block([deploy])
        // Enough to run the initcode, not to pay the code deposit (200 per byte).
        #expect(plan.included.first?.status == 0)
        #expect(plan.included.first?.gasUsed == 57_000)
        #expect(plan.included.first?.contractAddress == nil)
        #expect(plan.contracts.code.isEmpty)
        #expect(plan.state[Self.alice]?.nonce == 1)
    }

    @Test("value moved inside contracts is mirrored leg by leg: a split, a creation with value, a self-destruct")
    func valueInsideContracts() throws {
        let funded = Self.block([Self.grant(Self.alice, 100, nonce: 0)])
        let splitter = ValidatedTransaction.contractAddress(sender: Self.alice, nonce: 0)
        let destruct = ValidatedTransaction.contractAddress(sender: Self.alice, nonce: 1)
        let deployed = Self.block(
            [
                try Self.entry(Self.aliceKey, nonce: 0, to: nil, data: Self.initcode(Self.splitterRuntime)),
                try Self.entry(Self.aliceKey, nonce: 1, to: nil, value: 30, data: Self.initcode(Self.destructRuntime)),
            ],
            after: [funded]
        )
        #expect(deployed.included.map(\.status) == [1, 1])
        #expect(deployed.state[destruct]?.balance == 30)
        #expect(deployed.movements.map(\.amount) == [30])
        #expect(deployed.movements.first?.to == destruct)

        let split = try Self.entry(Self.aliceKey, nonce: 2, to: splitter, value: 10, data: Self.word(Self.bob) + Self.word(Self.carol))
        let destroy = try Self.entry(Self.bobKey, nonce: 0, to: destruct, data: Self.word(Self.carol))
        let plan = Self.block([split, destroy], after: [funded, deployed])
        #expect(plan.included.map(\.status) == [1, 1])
        #expect(plan.state[Self.alice]?.balance == 60)
        #expect(plan.state[Self.bob]?.balance == 5)
        #expect(plan.state[Self.carol]?.balance == 35)
        #expect(plan.state[splitter]?.balance == 0)
        #expect(plan.state[destruct]?.balance == 0)
        #expect(plan.contracts.code[destruct] == nil, "EIP-6780: a contract not created in the same transaction keeps its code")
        let transfers = BlockExecutor.ledgerTransfers(plan, asset: AssetCode("EVT-1")!, chainID: 1)
        let asset = AssetCode("EVT-1")!
        // Payers and payees in address order: alice pays bob and carol 5 each; the contract pays carol 30.
        let expected: [TransferAction] = [
            .post(debit: ledger(plan, Self.alice), credit: ledger(plan, Self.carol), amount: 5, asset: asset),
            .post(debit: ledger(plan, Self.alice), credit: ledger(plan, Self.bob), amount: 5, asset: asset),
            .post(debit: ledger(plan, destruct), credit: ledger(plan, Self.carol), amount: 30, asset: asset),
        ]
        #expect(Set(transfers.map { "\($0.action)" }) == Set(expected.map { "\($0)" }))
        #expect(Set(transfers.map(\.id)).count == 3)
        #expect(transfers.filter { $0.id == LocalChainIDs.transfer(transactionHash: try! Hex.decode(split.hash)) }.count == 1)
        // Conservation: the chain's balances still sum to what was issued.
        #expect(plan.state.values.reduce(UInt128(0)) { $0 + $1.balance } == 100)
    }

    @Test("a contract created and self-destructed to itself in one transaction destroys its value: burnt to issuance")
    func selfDestructToItself() throws {
        let funded = Self.block([Self.grant(Self.alice, 100, nonce: 0)])
        // Initcode: ADDRESS SELFDESTRUCT (to itself, in the creating transaction).
        let plan = Self.block([try Self.entry(Self.aliceKey, nonce: 0, to: nil, value: 30, data: [0x30, 0xff])], after: [funded])
        #expect(plan.included.first?.status == 1)
        #expect(plan.state[Self.alice]?.balance == 70)
        #expect(plan.movements.map(\.amount) == [30])
        #expect(plan.movements.first?.from == Self.alice && plan.movements.first?.to == Self.validator)
        #expect(plan.state.values.reduce(UInt128(0)) { $0 + $1.balance } == 70)
    }

    @Test("a non-zero gas price pays the validator, which destroys it: issuance is credited back")
    func feesAreBurnt() throws {
        let funded = Self.block([Self.grant(Self.alice, 1_000_000, nonce: 0)])
        let plan = Self.block(
            [try Self.entry(Self.aliceKey, nonce: 0, to: Self.bob, value: 1, gas: 21_000, gasPrice: 2, envelope: .dynamicFee)],
            after: [funded]
        )
        #expect(plan.included.first?.status == 1)
        let left: UInt128 = 1_000_000 - 1 - 42_000
        #expect(plan.state[Self.alice]?.balance == left)
        #expect(plan.state[Self.validator]?.balance == 0)
        let burnt = plan.movements.filter { $0.to == Self.validator }.reduce(UInt128(0)) { $0 + $1.amount }
        #expect(burnt == 42_000)
    }

    /// What executing ERC-20 transfers costs the sealer (EVMKit is built with -O even in debug),
    /// without storage I/O (run with `HUB_MEASURE_CONTRACTS=1`; the README quotes the figure).
    @Test("measure: a block of 100 ERC-20 transfers", .enabled(if: ProcessInfo.processInfo.environment["HUB_MEASURE_CONTRACTS"] != nil))
    func measureTransfers() throws {
        let deploy = try Self.entry(
            Self.aliceKey,
            nonce: 0,
            to: nil,
            data: LocalChainContractRPCTests.tokenBytecode + (try ABI.encode([.uint(bits: 256)], [.uint(UInt256(UInt64(1) << 60))])),
            gas: 2_000_000
        )
        let deployed = Self.block([deploy])
        let token = ValidatedTransaction.contractAddress(sender: Self.alice, nonce: 0)
        let transfers = try (1...100).map { i in
            let recipient = try EthereumAddress(bytes: Array(Keccak256.hash(Array("r\(i)".utf8)).prefix(20)))
            let data = try ABI.calldata(
                "transfer(address,uint256)",
                types: [.address, .uint(bits: 256)],
                values: [.address(recipient), .uint(UInt256(UInt64(i)))]
            )
            return try Self.entry(Self.aliceKey, nonce: UInt64(i), to: token, data: data, gas: 100_000, seq: Int64(i))
        }
        let clock = ContinuousClock()
        let start = clock.now
        let plan = Self.block(transfers, after: [deployed], gasLimit: 1_000_000_000)
        let elapsed = clock.now - start
        #expect(plan.included.count == 100)
        print("executed \(plan.included.count) ERC-20 transfers (\(plan.gasUsed) gas) in \(elapsed)")
    }

    @Test("the block gas limit: a transaction that does not fit waits for the next block")
    func blockGasLimit() throws {
        let first = try Self.entry(Self.aliceKey, nonce: 0, to: Self.bob, gas: 30_000)
        let second = try Self.entry(Self.bobKey, nonce: 0, to: Self.alice, gas: 30_000)
        let plan = Self.block([first, second], gasLimit: 50_000)
        #expect(plan.included.map(\.entry.hash) == [first.hash])
        let next = Self.block([second], after: [plan], gasLimit: 50_000)
        #expect(next.included.map(\.entry.hash) == [second.hash])
    }
}
