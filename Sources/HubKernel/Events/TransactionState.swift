/// What one write transaction keeps in memory and writes once, just before its commit: the
/// counters (`hub_counters`: the event sequence, the ledger's last timestamp), the rows of the
/// events it appends, and the ledger rows its units of work submitted transfers against.
///
/// Every unit of a group-committed transaction appends events and most submit transfers. Each
/// read and wrote both counters (four statements on one hot row), inserted its events and queued
/// a notification (two more), and wrote its transfers, holds and balances (three more): a group
/// now writes all of them once, in multi-row statements, and reads each ledger row once. Values
/// stay exact: the writer snapshots the state before each unit's savepoint and restores the
/// snapshot when it rolls the unit back, so a failed unit leaves no gap in the sequence, no reused
/// number, none of its events and none of its transfers.
///
/// Events appended in a transaction are therefore not in `hub_events` until its end: nothing
/// reads the log back in the transaction that appends to it (readers see committed events only).
/// The ledger's tables are written back before anything that may read them directly
/// (``writeLedger(on:)``); a unit reads the ledger through ``UnitOfWork``, which answers from the
/// batch.
final class TransactionState {
    struct Snapshot {
        fileprivate var counters: [String: CounterEntry]
        fileprivate var eventCount: Int
        fileprivate var ledger: LedgerBatch?
    }

    fileprivate struct CounterEntry {
        var value: Int64
        var dirty: Bool
    }

    private(set) var isActive = false
    private var counters: [String: CounterEntry] = [:]
    /// Rows for `hub_events`, in sequence order, in ``EventLog/columns`` order.
    private var eventRows: [[SQLValue]] = []
    /// The ledger rows units loaded and changed (``UnitOfWork/submit(_:)``), not yet written back.
    var ledger: LedgerBatch?

    func begin() {
        isActive = true
        counters = [:]
        eventRows = []
        ledger = nil
    }

    func end() {
        isActive = false
        counters = [:]
        eventRows = []
        ledger = nil
    }

    func cached(_ name: String) -> Int64? { counters[name]?.value }

    func remember(_ name: String, _ value: Int64, dirty: Bool) {
        counters[name] = CounterEntry(value: value, dirty: dirty || counters[name]?.dirty == true)
    }

    /// Keeps event rows for the insert before the commit.
    func appendEvents(_ rows: [[SQLValue]]) {
        eventRows.append(contentsOf: rows)
    }

    var snapshot: Snapshot { Snapshot(counters: counters, eventCount: eventRows.count, ledger: ledger) }

    func restore(_ snapshot: Snapshot) {
        counters = snapshot.counters
        eventRows.removeLast(eventRows.count - snapshot.eventCount)
        ledger = snapshot.ledger
    }

    /// Writes the ledger rows changed so far back and forgets the batch, for what reads or
    /// writes the ledger's tables directly (a kernel unit's statement, account creation): they
    /// then see the tables as the transaction left them, and later transfers read the rows again.
    /// A rollback to an earlier savepoint undoes the writes and restores the batch of then,
    /// changes included, so they are written again at the end.
    func writeLedger(on connection: any SQLConnection) throws {
        guard let ledger else { return }
        if ledger.hasChanges { try LedgerStore.writeRows(of: ledger, on: connection) }
        self.ledger = nil
    }

    /// Writes the ledger's rows back, inserts the events and writes every changed counter back;
    /// called once, just before the commit. On PostgreSQL one notification tells the other
    /// instances there are new events (``ClusterSignals``): it is delivered only if the
    /// transaction commits.
    func flush(on connection: any SQLConnection) throws {
        try writeLedger(on: connection)
        try connection.insertMany(into: "hub_events", columns: EventLog.columns, rows: eventRows)
        for (name, entry) in counters where entry.dirty {
            try connection.executeDeferred("UPDATE hub_counters SET value = \(entry.value) WHERE name = \(name)")
        }
        if !eventRows.isEmpty && connection.dialect == .postgres {
            try connection.executeDeferred(ClusterSignals.notification(.events, lastEvent: counters[Counters.Name.eventSequence.rawValue]?.value))
        }
    }
}

/// A connection that keeps a ``TransactionState`` for the write transaction it runs.
protocol TransactionStateHolding {
    var transactionState: TransactionState { get }
}

extension SQLConnection {
    /// The connection's transaction state while a write transaction is open on it; `nil` otherwise.
    var activeTransaction: TransactionState? {
        guard let holding = self as? any TransactionStateHolding, holding.transactionState.isActive else { return nil }
        return holding.transactionState
    }
}
