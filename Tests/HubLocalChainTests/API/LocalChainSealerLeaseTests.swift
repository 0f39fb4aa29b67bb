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

/// One sealer among instances: a sealer whose lease was taken over cannot seal.
@Suite("local chain sealer lease", .timeLimit(.minutes(4)))
struct LocalChainSealerLeaseTests {
    @Test("a sealer paused past its lease is fenced out: its block's unit is refused and the chain is unchanged", arguments: TestBackend.enabled)
    func fencedSealer(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 4_777
            #expect(try await api.createChain(chainID).status == .created)
            #expect(try await api.grant(chainID, to: TestKeys.address(TestKeys.alice), amount: "1000").status == .accepted)
            try await api.waitSealed(chainID)
            let plugin = try #require(hub.plugins.running.first { $0.id == LocalChainPlugin.id }?.plugin as? LocalChainPlugin)

            // Two instances' leases on one name: the first holds it, pauses past its expiry, and
            // the second takes over.
            let clock = ManualClock()
            let former = Lease(name: "test:sealer", database: hub.database, clock: clock.ledgerClock, holder: "former")
            let successor = Lease(name: "test:sealer", database: hub.database, clock: clock.ledgerClock, holder: "successor")
            #expect(try await former.acquireOrRenew())
            clock.advance(seconds: 6)
            #expect(try await successor.acquireOrRenew())

            var paused = plugin.sealer
            paused.lease = former
            let head = try await api.head(chainID)
            await #expect(throws: LeaseLost.self) { _ = try await paused.seal(chainID: chainID) }
            #expect(try await api.head(chainID) == head)
            // The holder seals (nothing is pending: no block, and no refusal).
            var leading = plugin.sealer
            leading.lease = successor
            #expect(try await leading.seal(chainID: chainID) == nil)
        }
    }
}
