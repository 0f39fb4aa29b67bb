import ChainKit
import EVMKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubLocalChain

/// Contracts on a live hub, on both backends: deployed and called through the rail's API, sealed,
/// their code and storage persisted, value moved inside them mirrored in the ledger so that
/// `hubd verify` still proves chain = ledger.
@Suite("local chain contracts", .timeLimit(.minutes(3)))
struct LocalChainContractTests {
    typealias Fixture = ContractExecutionTests

    func signed(
        _ key: [UInt8],
        _ chainID: UInt64,
        nonce: UInt64,
        to: EthereumAddress?,
        value: UInt64 = 0,
        data: [UInt8] = [],
        gas: UInt64 = 200_000
    ) throws -> [UInt8] {
        try EthereumTransaction(envelope: .dynamicFee, chainID: chainID, nonce: nonce, gasLimit: gas, to: to, value: UInt256(value), data: data)
            .signed(privateKey: key).raw
    }

    @Test("deploy, call, revert and a value split are sealed, persisted and mirrored; verify finds nothing", arguments: TestBackend.enabled)
    func contracts(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 4_800
            #expect(try await api.createChain(chainID).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            let bob = TestKeys.address(TestKeys.bob)
            let carol = Fixture.carol
            #expect(try await api.grant(chainID, to: alice, amount: "100").status == .accepted)
            // Bob holds money before the split pays him: a block reads such an account when the
            // EVM first touches it (the sealer no longer reads every account), and must add to it.
            #expect(try await api.grant(chainID, to: bob, amount: "3").status == .accepted)
            try await api.waitSealed(chainID)

            let storer = ValidatedTransaction.contractAddress(sender: alice, nonce: 0)
            let splitter = ValidatedTransaction.contractAddress(sender: alice, nonce: 1)
            for raw in [
                try signed(TestKeys.alice, chainID, nonce: 0, to: nil, data: Fixture.initcode(Fixture.storerRuntime)),
                try signed(TestKeys.alice, chainID, nonce: 1, to: nil, data: Fixture.initcode(Fixture.splitterRuntime)),
            ] {
                #expect(try await api.send(chainID, raw: raw).status == .accepted)
            }
            try await api.waitSealed(chainID)
            let code = try await hub.database.read { try ContractStore.code(chainID: chainID, address: storer, on: $0) }
            #expect(code == Fixture.storerRuntime)
            #expect(try await api.account(chainID, storer)?.nonce == 1)

            let store = try signed(TestKeys.alice, chainID, nonce: 2, to: storer, data: U256(7).bigEndianBytes)
            let revert = try signed(TestKeys.alice, chainID, nonce: 3, to: storer, data: U256.zero.bigEndianBytes)
            let split = try signed(TestKeys.alice, chainID, nonce: 4, to: splitter, value: 10, data: Fixture.word(bob) + Fixture.word(carol))
            for raw in [store, revert, split] { #expect(try await api.send(chainID, raw: raw).status == .accepted) }
            try await api.waitSealed(chainID)

            let slot = try await hub.database.read { try ContractStore.slot(chainID: chainID, address: storer, slot: .zero, on: $0) }
            #expect(slot == U256(7))
            let statuses = try await hub.database.read { connection in
                try [store, revert, split].map {
                    try LocalChainStore.transaction(chainID: chainID, hash: Hex.encode(Keccak256.hash($0)), on: connection)?.status
                }
            }
            #expect(statuses == [1, 0, 1])
            #expect(try await api.account(chainID, alice)?.balance == 90)
            #expect(try await api.account(chainID, alice)?.nonce == 5)
            #expect(try await api.account(chainID, bob)?.balance == 8)
            #expect(try await api.account(chainID, carol)?.balance == 5)

            // The block's receipts carry gas and logs: the receipts root commits to them.
            let sealed = try #require(
                try await hub.database.read { try LocalChainStore.transaction(chainID: chainID, hash: Hex.encode(Keccak256.hash(store)), on: $0) }
            )
            let block = try #require(
                try await hub.database.read { try LocalChainStore.block(chainID: chainID, number: sealed.blockNumber, on: $0) }
            ).decoded()
            let receipt = block.receipts[sealed.position]
            #expect((receipt.gasUsed ?? 0) > 21_000)
            #expect(receipt.logs == [LocalChainLog(address: storer, topics: [U256(42).bigEndianBytes], data: [])])

            let report = try #require(try await LocalChainVerifier.verify(hub.database))
            #expect(report.problems.isEmpty, "\(report.problems)")

            // A slot changed behind the chain's back no longer matches its account's storage root
            // (the one the head's state root commits to).
            _ = try await hub.database.write { connection in
                try connection.execute(
                    "UPDATE localchain_storage SET value = \(U256(8).bigEndianBytes) WHERE chain_id = \(Int64(chainID)) AND address = \(storer.description)"
                )
            }
            let tampered = try #require(try await LocalChainVerifier.verify(hub.database))
            #expect(tampered.problems.count == 1, "\(tampered.problems)")
            #expect(tampered.problems.first?.contains("storage root") == true)
        }
    }

    @Test("bad contract transactions are refused with a reason and change nothing", arguments: TestBackend.enabled)
    func refused(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 4_801
            #expect(try await api.createChain(chainID, extra: ["block_gas_limit": 100_000]).status == .created)
            let eventsBefore = try await api.eventCount()
            func expectRefused(_ raw: [UInt8], _ code: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                let response = try await api.send(chainID, raw: raw)
                #expect(response.status == .unprocessableContent, sourceLocation: sourceLocation)
                #expect(response.object["code"] as? String == code, "\(response.text)", sourceLocation: sourceLocation)
            }
            try await expectRefused(try signed(TestKeys.alice, chainID, nonce: 0, to: nil, data: [0x00], gas: 53_003), "intrinsic_gas_too_low")
            try await expectRefused(try signed(TestKeys.alice, chainID, nonce: 0, to: nil, data: [0x00], gas: 100_001), "gas_limit_exceeded")
            try await expectRefused(
                try signed(TestKeys.alice, chainID, nonce: 0, to: nil, data: [UInt8](repeating: 0, count: 49_153), gas: 100_000),
                "initcode_too_large"
            )
            #expect(try await api.eventCount() == eventsBefore)
            #expect(try await api.poolCount(chainID) == 0)
            let bad = try await api.createChain(4_802, extra: ["block_gas_limit": 20_999])
            #expect(bad.status == .unprocessableContent)
            #expect(try bad.json()["field"] as? String == "block_gas_limit")
        }
    }
}
