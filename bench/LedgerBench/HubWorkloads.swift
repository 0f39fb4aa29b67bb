import Foundation
import HubKernel
import Logging

/// Workloads through the real ledger: group commit, balance checks, events, everything.
struct HubWorkloads {
    let ledger: Ledger
    let backend: String
    var accounts: [AccountID]
    let asset: AssetCode

    /// Creates an asset and `accountCount` funded wallets.
    static func prepare(_ ledger: Ledger, backend: String, accountCount: Int) async throws -> HubWorkloads {
        let asset = try await ledger.createAsset(NewAsset(code: AssetCode("BENCH")!, scale: 2, name: "benchmark")).value!
        let ids = try await fundedAccounts(accountCount, numberedFrom: 0, asset: asset, on: ledger)
        return HubWorkloads(ledger: ledger, backend: backend, accounts: ids, asset: asset.code)
    }

    /// Creates `count` wallets of `asset` (owners `bench-N` from `first`), each funded with 2^60
    /// by a mint from the issuance account: 1,000 accounts and 5,000 mints per database transaction.
    static func fundedAccounts(_ count: Int, numberedFrom first: Int, asset: Asset, on ledger: Ledger) async throws -> [AccountID] {
        var ids: [AccountID] = []
        ids.reserveCapacity(count)
        for start in stride(from: first, to: first + count, by: 1000) {
            let chunk = (start..<min(first + count, start + 1000)).map { index in
                NewAccount(id: .random(), asset: asset.code, owner: .user("bench-\(index)"))
            }
            _ = try await ledger.createAccounts(chunk)
            ids += chunk.map(\.id)
        }
        for start in stride(from: 0, to: ids.count, by: 5000) {
            let mints = ids[start..<min(ids.count, start + 5000)].map { id in
                TransferRequest(id: .random(), action: .post(debit: asset.issuanceAccountID, credit: id, amount: 1 << 60, asset: asset.code))
            }
            let results = try await ledger.submit(Array(mints))
            if let failed = results.first(where: { $0.transfer == nil }) { throw BenchError("a funding mint failed: \(failed)") }
        }
        return ids
    }

    func randomTransfer(timeOrdered: Bool = false) -> TransferRequest {
        let debit = accounts.randomElement()!
        var credit = accounts.randomElement()!
        while credit == debit { credit = accounts.randomElement()! }
        return TransferRequest(id: timeOrdered ? .timeOrdered() : .random(), action: .post(debit: debit, credit: credit, amount: 1, asset: asset))
    }

    /// One caller submitting batches of `batchSize`, one database transaction each.
    /// With `timeOrdered`, transfer ids are UUIDv7 (insert locality); otherwise random UUIDv4.
    func batched(total: Int, batchSize: Int, timeOrdered: Bool) async throws -> BenchResult {
        let batches = (0..<(total / batchSize)).map { _ in (0..<batchSize).map { _ in randomTransfer(timeOrdered: timeOrdered) } }
        let start = ContinuousClock.now
        for batch in batches {
            let results = try await ledger.submit(batch)
            guard results.allSatisfy({ $0.transfer != nil }) else {
                throw BenchError("a benchmark transfer failed: \(results.first { $0.transfer == nil }!)")
            }
        }
        let elapsed = (ContinuousClock.now - start).seconds
        let count = batches.count * batchSize
        return BenchResult(
            backend: backend,
            mode: "hub-batched-\(batchSize)\(timeOrdered ? "-v7-ids" : "-random-ids")",
            transfers: count,
            seconds: elapsed,
            transfers_per_sec: Double(count) / elapsed
        )
    }

    /// `callers` concurrent tasks each submitting single transfers, `total` in all.
    func concurrentSingles(total: Int, callers: Int) async throws -> BenchResult {
        try await concurrent(total: total, callers: callers, batchSize: 1)
    }

    /// `callers` concurrent tasks each submitting batches of `batchSize` (one transfer per call
    /// when 1), `total` transfers in all: the shape of HTTP clients on several connections, so
    /// `make bench-http` compares its requests with this.
    func concurrent(total: Int, callers: Int, batchSize: Int) async throws -> BenchResult {
        let callsPerCaller = max(1, total / (callers * batchSize))
        return try await measureCallers(
            callers,
            mode: batchSize == 1 ? "hub-single-\(callers)-callers" : "hub-batches-\(batchSize)-\(callers)-callers",
            count: callsPerCaller * callers * batchSize
        ) { _ in
            var latencies = Latencies()
            for _ in 0..<callsPerCaller {
                let batch = (0..<batchSize).map { _ in randomTransfer(timeOrdered: true) }
                let began = ContinuousClock.now
                let results = try await ledger.submit(batch)
                latencies.add(ContinuousClock.now - began)
                if let failed = results.first(where: { $0.transfer == nil }) {
                    throw BenchError("a benchmark transfer failed: \(failed)")
                }
            }
            return latencies
        }
    }

    /// Runs `caller` on `callers` concurrent tasks (each gets its index and returns its calls'
    /// latencies) and reports `count` operations over the wall time, with the writer's mean group.
    func measureCallers(
        _ callers: Int,
        mode: String,
        count: Int,
        _ caller: @escaping @Sendable (Int) async throws -> Latencies
    ) async throws -> BenchResult {
        let before = ledger.writerStatistics
        let start = ContinuousClock.now
        let latencies = try await withThrowingTaskGroup(of: Latencies.self) { group in
            for index in 0..<callers { group.addTask { try await caller(index) } }
            var all = Latencies()
            for try await part in group { all.samples += part.samples }
            return all
        }
        let elapsed = (ContinuousClock.now - start).seconds
        let after = ledger.writerStatistics
        return BenchResult(
            backend: backend,
            mode: mode,
            transfers: count,
            seconds: elapsed,
            transfers_per_sec: Double(count) / elapsed,
            p50_ms: latencies.percentile(0.5),
            p99_ms: latencies.percentile(0.99),
            calls_per_commit: Double(after.requests - before.requests) / Double(max(1, after.transactions - before.transactions))
        )
    }
}
