import Metrics

/// What the ledger reports after a commit: counts by result for `/metrics`, and a signal that new
/// events are in the log.
struct LedgerObserver: Sendable {
    let created: Counter?
    let existed: Counter?
    let failed: Counter?
    let onCommit: @Sendable () -> Void

    init(metrics: (any MetricsFactory)?, onCommit: @escaping @Sendable () -> Void) {
        func counter(_ result: String) -> Counter? {
            metrics.map { Counter(label: "hub_ledger_transfers_total", dimensions: [("result", result)], factory: $0) }
        }
        created = counter("created")
        existed = counter("exists")
        failed = counter("failed")
        self.onCommit = onCommit
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
