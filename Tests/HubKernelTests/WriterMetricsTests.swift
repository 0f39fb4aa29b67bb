import HubKernel
import HubTestSupport
import Testing

@Suite("Writer metrics")
struct WriterMetricsTests {
    @Test("every write transaction is counted with the requests it carried and its duration", .timeLimit(.minutes(3)))
    func countsGroupCommits() async throws {
        let metrics = RecordingMetricsFactory()
        try await withLedger(on: .sqlite, metrics: metrics) { ledger in
            let asset = try await ledger.makeAsset("USD")
            let wallet = try await ledger.makeWallet(asset)
            let (transactionsBefore, requestsBefore) = (
                metrics.counter("hub_writer_transactions_total", [:]), metrics.counter("hub_writer_requests_total", [:])
            )
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<32 { group.addTask { try await ledger.mint(1, of: asset, to: wallet) } }
                try await group.waitForAll()
            }
            let transactions = metrics.counter("hub_writer_transactions_total", [:]) - transactionsBefore
            #expect(metrics.counter("hub_writer_requests_total", [:]) - requestsBefore == 32)
            #expect((1...32).contains(transactions))
            let durations = metrics.timings("hub_writer_transaction_duration_seconds", [:])
            #expect(Int64(durations.count) == metrics.counter("hub_writer_transactions_total", [:]))
            #expect(durations.allSatisfy { $0 > 0 })
        }
    }
}
