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

/// The state trie a sealer keeps between blocks (``StateTrieCache``) must never give a root other
/// than the one built from every account: not when another instance sealed in between (its trie is
/// then for an old head), nor after a block's unit of work failed once the trie was kept.
@Suite("local chain state trie kept between blocks", .timeLimit(.minutes(4)))
struct LocalChainStateTrieTests {
    struct Rollback: Error {}

    @Test(
        "two instances' sealers taking turns, and a sealed block rolled back: every head's root is the full rebuild's",
        arguments: TestBackend.enabled
    )
    func takingTurns(backend: TestBackend) async throws {
        let keyFile = localChainKeyFile()
        defer { try? FileManager.default.removeItem(atPath: (keyFile as NSString).deletingLastPathComponent) }
        try await withTestHub(on: backend, builtIn: [LocalChainPlugin.self], plugins: [localChainEntry(keyFile: keyFile)]) { hub, client in
            let api = LocalChainAPI(client: client, database: hub.database)
            let chainID: UInt64 = 4_909
            // A block an hour: the hub's own sealer never finds the chain due, so the test seals every block.
            #expect(try await api.createChain(chainID, intervalMs: 3_600_000).status == .created)
            let plugin = try #require(hub.plugins.running.first { $0.id == LocalChainPlugin.id }?.plugin as? LocalChainPlugin)
            let first = plugin.sealer
            // Another instance's sealer: the same database, a trie cache of its own.
            let second = BlockSealer(context: first.context, configuration: first.configuration, vault: first.vault, health: first.health)

            for (step, sealer) in [first, first, second, second, first, nil, first, second].enumerated() {
                let recipient = try EthereumAddress(String(format: "0x%040x", 0xB10C_0000 + step))
                #expect(try await api.grant(chainID, to: recipient, amount: String(step + 1)).status == .accepted)
                guard let sealer else {
                    // The first sealer seals and keeps its trie, then the unit fails: nothing of the block stays.
                    let before = try await api.head(chainID)
                    try await sealRolledBack(first, chainID: chainID)
                    #expect(try await api.head(chainID) == before)
                    #expect(first.stateTries.trie(chainID: chainID, head: try await headHash(api, chainID)) == nil)
                    continue
                }
                #expect(try await sealer.seal(chainID: chainID) != nil, "step \(step)")
                #expect(try await headRootIsFullRebuild(api, chainID), "step \(step)")
            }
            #expect(try await api.head(chainID) == 7)
        }
    }

    /// Seals a block in a unit of work that then throws.
    func sealRolledBack(_ sealer: BlockSealer, chainID: UInt64) async throws {
        let context = sealer.context
        let code = try #require(try await context.database.read { try LocalChainStore.chain(chainID, on: $0)?.asset })
        let asset = try #require(try await context.ledger.asset(code))
        let (vault, tries, source, now) = (sealer.vault, sealer.stateTries, context.eventSource, context.clock.now())
        await #expect(throws: Rollback.self) {
            try await context.write { tx in
                let block = try BlockSealer.seal(
                    chainID: chainID,
                    asset: asset,
                    limit: 100,
                    vault: vault,
                    source: source,
                    now: now,
                    stateTries: tries,
                    in: tx
                )
                #expect(block != nil)
                throw Rollback()
            }
        }
    }

    func headHash(_ api: LocalChainAPI, _ chainID: UInt64) async throws -> String {
        try await api.database.read { try LocalChainStore.chain(chainID, on: $0)?.headHash ?? "" }
    }

    /// Whether the head block's state root is the root over every account, read in one snapshot.
    func headRootIsFullRebuild(_ api: LocalChainAPI, _ chainID: UInt64) async throws -> Bool {
        try await api.database.read { connection in
            guard let chain = try LocalChainStore.chain(chainID, on: connection),
                let head = try LocalChainStore.block(chainID: chainID, number: chain.headNumber, on: connection)
            else { return false }
            let accounts = try LocalChainStore.accounts(chainID: chainID, on: connection)
            return try head.decoded().header.header.stateRoot == chain.stateRoot.root(accounts)
        }
    }
}
