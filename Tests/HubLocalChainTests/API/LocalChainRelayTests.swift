import ChainKit
import Foundation
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubLocalChain

/// What a relay does with blocks it receives (the three-process test over WebSocket is
/// `scripts/localchain-relay-test.sh`): verified ones are stored, repeats skipped, forgeries refused.
@Suite("local chain relay import", .timeLimit(.minutes(3)))
struct LocalChainRelayTests {
    @Test("a relay stores the host's blocks after verifying them and refuses forged or out-of-order ones", arguments: TestBackend.enabled)
    func importBlocks(backend: TestBackend) async throws {
        let keyFile = localChainKeyFile()
        defer { try? FileManager.default.removeItem(atPath: (keyFile as NSString).deletingLastPathComponent) }
        try await withTestHub(on: backend, builtIn: [LocalChainPlugin.self], plugins: [localChainEntry(keyFile: keyFile)]) { hub, client in
            let api = LocalChainAPI(client: client, database: hub.database)
            let chainID: UInt64 = 8_100
            #expect(try await api.createChain(chainID).status == .created)
            let alice = TestKeys.address(TestKeys.alice)
            let bob = TestKeys.address(TestKeys.bob)
            #expect(try await api.grant(chainID, to: alice, amount: "500").status == .accepted)
            try await api.waitSealed(chainID)
            #expect(
                try await api.send(chainID, raw: try signedTransfer(TestKeys.alice, chainID: chainID, nonce: 0, to: bob, value: 70).raw).status
                    == .accepted
            )
            try await api.waitSealed(chainID)
            // Contracts: an ERC-20 deployed and used, and value split by a contract; the relay
            // must replay them to the same receipts (gas, logs) and state root (storage, code).
            let token = ValidatedTransaction.contractAddress(sender: alice, nonce: 1)
            let splitter = ValidatedTransaction.contractAddress(sender: alice, nonce: 2)
            let carol = ContractExecutionTests.carol
            let transfer = try ABI.calldata(
                "transfer(address,uint256)",
                types: [.address, .uint(bits: 256)],
                values: [.address(bob), .uint(UInt256(UInt64(9)))]
            )
            for (nonce, to, value, data) in [
                (
                    UInt64(1), nil, UInt64(0),
                    LocalChainContractRPCTests.tokenBytecode + (try ABI.encode([.uint(bits: 256)], [.uint(UInt256(UInt64(100)))]))
                ),
                (2, nil, 0, ContractExecutionTests.initcode(ContractExecutionTests.splitterRuntime)),
                (3, token, 0, transfer),
                (4, splitter, 10, ContractExecutionTests.word(bob) + ContractExecutionTests.word(carol)),
            ] as [(UInt64, EthereumAddress?, UInt64, [UInt8])] {
                let raw = try EthereumTransaction(
                    envelope: .dynamicFee,
                    chainID: chainID,
                    nonce: nonce,
                    gasLimit: 1_000_000,
                    to: to,
                    value: UInt256(value),
                    data: data
                )
                .signed(privateKey: TestKeys.alice).raw
                #expect(try await api.send(chainID, raw: raw).status == .accepted)
            }
            try await api.waitSealed(chainID)
            let host = try #require(try await hub.database.read { try LocalChainStore.chain(chainID, on: $0) })
            let stored = try await hub.database.read { try LocalChainStore.blocks(chainID: chainID, from: 0, limit: 100, on: $0) }
            let blocks = try stored.map { try $0.decoded() }
            #expect(blocks.count == Int(host.headNumber) + 1)
            let dataKey = try #require(try await hub.secrets.secret(SecretName(namespace: "rail:localchain", name: ValidatorKeyVault.dataKeyName)))
            let key = try ValidatorKeyVault(key: try #require(KeyEncryptionKey(keyBytes: dataKey))).open(host.sealedKey, chainID: chainID)

            try await withLedger(on: backend, railMigrations: [(group: MigrationGroup.rail("localchain"), migrations: LocalChainMigrations.all)]) {
                ledger in
                let relay = ledger.database
                func receive(_ block: LocalChainBlock) async throws -> BlockImporter.Outcome {
                    try await ledger.write(as: .rail("localchain", eventTypes: LocalChainPlugin.eventTypes)) {
                        try BlockImporter.importBlock(
                            block,
                            chainID: chainID,
                            upstream: "http://upstream",
                            source: "/rails/localchain",
                            now: LedgerTimestamp(nanoseconds: 1),
                            in: $0
                        )
                    }
                }
                // Out of order: nothing before the genesis.
                await #expect(throws: BlockImporter.Rejection.self) { _ = try await receive(blocks[1]) }
                // A genesis other than the configured one is refused.
                await #expect(throws: BlockImporter.Rejection.self) {
                    _ = try await ledger.write(as: .rail("localchain", eventTypes: LocalChainPlugin.eventTypes)) {
                        try BlockImporter.importBlock(
                            blocks[0],
                            chainID: chainID,
                            upstream: "http://upstream",
                            expectedGenesis: Hex.encode([UInt8](repeating: 1, count: 32)),
                            source: "/rails/localchain",
                            now: LedgerTimestamp(nanoseconds: 1),
                            in: $0
                        )
                    }
                }
                #expect(try await receive(blocks[0]) == .stored(0))
                // A block signed by another key is refused.
                var forged = blocks[1]
                forged.header = try forged.header.header.sealed(privateKey: TestKeys.bob)
                await #expect(throws: BlockImporter.Rejection.self) { _ = try await receive(forged) }
                // Signed by the validator but lying about the state (what a stolen key could try):
                // replaying the transactions shows it.
                var lying = blocks[1].header.header
                lying.stateRoot = EthereumStateRoot.root([EthereumAccountState(address: alice, nonce: 0, balance: UInt256(UInt64(1_000_000)))])
                let lie = LocalChainBlock(
                    header: try lying.sealed(privateKey: key),
                    transactions: blocks[1].transactions,
                    receipts: blocks[1].receipts
                )
                await #expect(throws: BlockImporter.Rejection.self) { _ = try await receive(lie) }
                // Up to the first block with contracts, then that block claiming other gas for its
                // first receipt (receipts root recomputed, re-signed): the replay refuses it.
                let contractIndex = try #require(blocks.firstIndex { $0.receipts.contains { ($0.gasUsed ?? 0) > 21_000 } })
                for block in blocks[1..<contractIndex] { #expect(try await receive(block) == .stored(block.header.header.number)) }
                var claims = blocks[contractIndex].receipts
                claims[0].gasUsed = (claims[0].gasUsed ?? 0) - 1
                var claimed = blocks[contractIndex].header.header
                claimed.receiptsRoot = LocalChainRoots.receipts(claims)
                let overclaim = LocalChainBlock(
                    header: try claimed.sealed(privateKey: key),
                    transactions: blocks[contractIndex].transactions,
                    receipts: claims
                )
                await #expect(throws: BlockImporter.Rejection.self) { _ = try await receive(overclaim) }
                for block in blocks[contractIndex...] { #expect(try await receive(block) == .stored(block.header.header.number)) }
                #expect(try await receive(blocks[1]) == .duplicate(1))  // deduplicated by hash
                await #expect(throws: BlockImporter.Rejection.self) { _ = try await receive(lie) }  // no reorganisation

                let relayed = try #require(try await relay.read { try LocalChainStore.chain(chainID, on: $0) })
                #expect(relayed.headHash == host.headHash)
                #expect(relayed.upstream == "http://upstream")
                #expect(relayed.validator == host.validator)
                // Bob: 70 paid, 5 from the split.
                #expect(try await relay.read { try LocalChainStore.account(chainID: chainID, address: bob, on: $0) }?.balance == 75)
                #expect(try await relay.read { try LocalChainStore.account(chainID: chainID, address: alice, on: $0) }?.balance == 420)
                #expect(try await relay.read { try LocalChainStore.account(chainID: chainID, address: carol, on: $0) }?.balance == 5)
                let relayedCode = try await relay.read { try ContractStore.code(chainID: chainID, address: token, on: $0) }
                #expect(relayedCode == (try await hub.database.read { try ContractStore.code(chainID: chainID, address: token, on: $0) }))
                #expect(!relayedCode.isEmpty)
                let relayedLogs = try await relay.read {
                    try LogStore.logs(chainID: chainID, filter: LogFilter(fromBlock: 0, toBlock: 1_000, addresses: [token]), limit: 10, on: $0)
                }
                #expect(relayedLogs.count == 2)  // the mint at deployment and the transfer
                let report = try #require(try await LocalChainVerifier.verify(relay))
                #expect(report.problems.isEmpty, "\(report.problems)")
            }
        }
    }
}
