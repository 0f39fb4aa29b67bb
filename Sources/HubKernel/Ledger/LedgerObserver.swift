import Metrics

/// What the ledger reports after a commit: counts by result for `/metrics`, the writer's group
/// commits, and a signal that new events are in the log.
struct LedgerObserver: Sendable {
    let created: Counter?
    let existed: Counter?
    let failed: Counter?
    /// Write transactions the writer committed and the requests they carried: their ratio is the
    /// mean group size, the first thing to read when writes slow down.
    let writerTransactions: Counter?
    let writerRequests: Counter?
    /// How long each write transaction held the writer, its commit included.
    let writerTransactionDuration: Metrics.Timer?
    /// Called with the newest event sequence the commit wrote, when the writer knows it.
    let onCommit: @Sendable (_ lastEvent: Int64?) -> Void

    init(metrics: (any MetricsFactory)?, onCommit: @escaping @Sendable (_ lastEvent: Int64?) -> Void) {
        func counter(_ result: String) -> Counter? {
            metrics.map { Counter(label: "hub_ledger_transfers_total", dimensions: [("result", result)], factory: $0) }
        }
        created = counter("created")
        existed = counter("exists")
        failed = counter("failed")
        writerTransactions = metrics.map { Counter(label: "hub_writer_transactions_total", factory: $0) }
        writerRequests = metrics.map { Counter(label: "hub_writer_requests_total", factory: $0) }
        writerTransactionDuration = metrics.map { Metrics.Timer(label: "hub_writer_transaction_duration_seconds", factory: $0) }
        self.onCommit = onCommit
    }

    /// One write transaction committed, carrying `requests` (transfer calls, units, expiry runs).
    func committed(requests: Int, after duration: Duration) {
        writerTransactions?.increment()
        writerRequests?.increment(by: requests)
        writerTransactionDuration?.recordNanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// Counts `results`; returns whether any transfer was created (so new events are in the log).
    @discardableResult
    func recorded(_ results: [TransferResult]) -> Bool {
        var counts = (created: 0, existed: 0, failed: 0)
        for result in results {
            switch result {
            case .created: counts.created += 1
            case .exists: counts.existed += 1
            case .failed: counts.failed += 1
            }
        }
        if counts.created > 0 { created?.increment(by: counts.created) }
        if counts.existed > 0 { existed?.increment(by: counts.existed) }
        if counts.failed > 0 { failed?.increment(by: counts.failed) }
        return counts.created > 0
    }
}
