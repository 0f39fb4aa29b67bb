import ChainKit
import Foundation
import HTTPTypes
import HubKernel
import HubServer
import HubServerTestSupport
import HubTestSupport
import HummingbirdTesting
import Testing

@testable import HubLocalChain

/// Sends that wait for the same group commit run as one batch of the intake's step: each chain's
/// state is read once for all of them, and each caller still gets its own answer, in the order
/// the callers arrived.
@Suite("local chain: batched intake", .timeLimit(.minutes(3)))
struct LocalChainIntakeBatchTests {
    @Test("callers of one group on two chains: each answered on its own, in arrival order; one event per accepted", arguments: TestBackend.enabled)
    func callersInOneBatch(backend: TestBackend) async throws {
        try await withLocalChainHub(on: backend) { hub, api in
            let (main, other): (UInt64, UInt64) = (4_800, 4_801)
            // Blocks 8 s apart: the group's transactions wait in the pool while the test reads it.
            for chain in [main, other] { #expect(try await api.createChain(chain, intervalMs: 8_000).status == .created) }
            let carol = [UInt8](repeating: 0xC0, count: 32)
            let sink = try EthereumAddress("0x00000000000000000000000000000000000051a1")
            for key in [TestKeys.alice, TestKeys.bob] {
                #expect(try await api.grant(main, to: TestKeys.address(key), amount: "100").status == .accepted)
            }
            #expect(try await api.grant(other, to: TestKeys.address(carol), amount: "100").status == .accepted)
            for chain in [main, other] { try await api.waitSealed(chain) }
            let eventsBefore = try await api.eventCount()

            let aliceFirst = try signedTransfer(TestKeys.alice, chainID: main, nonce: 0, to: sink, value: 10)
            let bobFirst = try signedTransfer(TestKeys.bob, chainID: main, nonce: 0, to: sink, value: 10)
            let bobSecond = try signedTransfer(TestKeys.bob, chainID: main, nonce: 1, to: sink, value: 5)
            let sends: [(UInt64, SignedEthereumTransaction)] = [
                (main, aliceFirst),
                (main, bobFirst),
                (other, try signedTransfer(carol, chainID: other, nonce: 0, to: sink, value: 10)),
                // Alice's first again: known, as a retry is.
                (main, aliceFirst),
                // More than Bob holds with his first pending: refused, and the others go on.
                (main, try signedTransfer(TestKeys.bob, chainID: main, nonce: 1, to: sink, value: 91)),
                // Follows Alice's first, sent by another caller of the same batch.
                (main, try signedTransfer(TestKeys.alice, chainID: main, nonce: 1, to: sink, value: 10)),
                // Takes the nonce Bob's refused one left free.
                (main, bobSecond),
                // Bob's second once more: now pending.
                (main, bobSecond),
                // Signed for the other chain: refused before the writer sees it, the group unchanged.
                (main, try signedTransfer(TestKeys.alice, chainID: other, nonce: 2, to: sink, value: 1)),
            ]
            let answers = try await inOneWriterGroup(
                hub.ledger,
                sends.map { chain, transaction in
                    { @Sendable in
                        let response = try await api.send(chain, raw: transaction.raw)
                        return (status: Int(response.status.code), code: problemCode(response), hash: try? response.json()["hash"] as? String)
                    }
                }
            )
            #expect(answers.map(\.status) == [202, 202, 202, 200, 422, 202, 202, 200, 422], "\(answers)")
            #expect(answers.map(\.code) == [nil, nil, nil, nil, "insufficient_funds", nil, nil, nil, "wrong_chain_id"])
            for (index, answer) in answers.enumerated() where answer.status < 300 {
                #expect(answer.hash == Hex.encode(sends[index].1.hash), "answer \(index)")
            }
            #expect(try await api.poolCount(main) == 4)
            #expect(try await api.poolCount(other) == 1)
            #expect(try await api.eventCount() == eventsBefore + 5)

            for chain in [main, other] { try await api.waitSealed(chain) }
            #expect(try await api.account(main, TestKeys.address(TestKeys.alice))?.balance == 80)
            #expect(try await api.account(main, TestKeys.address(TestKeys.bob))?.balance == 85)
            #expect(try await api.account(other, TestKeys.address(carol))?.balance == 90)
            try await hub.ledger.expectVerified()
            let report = try #require(try await LocalChainVerifier.verify(hub.database))
            #expect(report.problems.isEmpty, "\(report.problems)")
        }
    }
}
