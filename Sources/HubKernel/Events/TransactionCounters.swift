/// The counters (`hub_counters`: the event sequence, the ledger's last timestamp) as one write
/// transaction sees them, kept in memory from their first read and written back once, before the
/// commit.
///
/// Every unit of a group-committed transaction appends events and most submit transfers: each
/// read and wrote both counters, four statements of the twenty or so a unit costs, all on one hot
/// row. Values stay exact: the writer snapshots them before each unit's savepoint and restores
/// the snapshot when it rolls the unit back, so a failed unit leaves no gap and no reuse.
final class TransactionCounters {
    typealias Snapshot = [String: Entry]

    struct Entry {
        var value: Int64
        var dirty: Bool
    }

    private(set) var isActive = false
    private var entries: Snapshot = [:]

    func begin() {
        isActive = true
        entries = [:]
    }

    func end() {
        isActive = false
        entries = [:]
    }

    func cached(_ name: String) -> Int64? { entries[name]?.value }

    func remember(_ name: String, _ value: Int64, dirty: Bool) {
        entries[name] = Entry(value: value, dirty: dirty || entries[name]?.dirty == true)
    }

    var snapshot: Snapshot { entries }

    func restore(_ snapshot: Snapshot) { entries = snapshot }

    /// Writes every changed counter back; called once, just before the commit.
    func flush(on connection: any SQLConnection) throws {
        for (name, entry) in entries where entry.dirty {
            try connection.executeDeferred("UPDATE hub_counters SET value = \(entry.value) WHERE name = \(name)")
        }
    }
}

/// A connection that keeps ``TransactionCounters`` for the write transaction it runs.
protocol CounterCaching {
    var counters: TransactionCounters { get }
}

extension SQLConnection {
    /// The connection's counters while a write transaction is open on it; `nil` otherwise.
    var activeCounters: TransactionCounters? {
        guard let caching = self as? any CounterCaching, caching.counters.isActive else { return nil }
        return caching.counters
    }
}
