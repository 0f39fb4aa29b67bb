import ChainKit
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HubLocalChain

/// The pool's store on both engines: what intake reads to decide "pool full" without counting.
@Suite("local chain pool store", .timeLimit(.minutes(3)))
struct LocalChainPoolTests {
    @Test("the pool's size is bounded by its first and last entry, and counted only near the limit", arguments: TestBackend.enabled)
    func poolSize(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let chainID: UInt64 = 5_400
            #expect(try await api.createChain(chainID).status == .created)
            let sender = try EthereumAddress("0x00000000000000000000000000000000000000a1")
            let entries = (0..<10).map { nonce in
                PoolEntry(
                    seq: 0,
                    hash: Hex.encode(Keccak256.hash([UInt8(nonce)])),
                    sender: sender,
                    recipient: sender,
                    nonce: UInt64(nonce),
                    value: 1,
                    raw: [UInt8(nonce)]
                )
            }
            let sizes = try await hub.database.write { connection -> [Int] in
                var sizes = [try LocalChainStore.poolSize(chainID: chainID, exactFrom: 100, on: connection)]
                try LocalChainStore.insert(entries, chainID: chainID, receivedAt: 0, on: connection)
                sizes.append(try LocalChainStore.poolSize(chainID: chainID, exactFrom: 100, on: connection))
                // Sealed from the middle: the ends still span 10 entries, 7 are left.
                try LocalChainStore.removeFromPool(entries[3..<6].map(\.hash), chainID: chainID, on: connection)
                sizes.append(try LocalChainStore.poolSize(chainID: chainID, exactFrom: 100, on: connection))
                sizes.append(try LocalChainStore.poolSize(chainID: chainID, exactFrom: 10, on: connection))
                sizes.append(try LocalChainStore.poolSize(chainID: chainID + 1, exactFrom: 100, on: connection))
                // Nothing for the sealer: these rows are no transactions.
                try LocalChainStore.removeFromPool(entries.map(\.hash), chainID: chainID, on: connection)
                return sizes
            }
            #expect(sizes == [0, 10, 10, 7, 0])
        }
    }
}
