/// One database transaction shared by a caller's own writes and ledger transfers (DESIGN §3.5: a
/// rail's state and the money it moves change together or not at all).
///
/// Handed to the body of ``Ledger/write(_:)``. Transfers submitted here see the rows written
/// before them in the same transaction and commit with them; when the body throws, everything in
/// it, transfers included, rolls back. A refused transfer (a `.failed` result) changes nothing
/// by itself; the body decides whether the rest still stands, usually by throwing.
public struct LedgerTransaction: ~Copyable {
    /// The transaction's connection: the caller's own reads and writes go here, and its events
    /// through `EventLog.append(_:on:)`.
    public let connection: any SQLConnection
    /// The ledger clock's reading when the transaction began.
    public let now: LedgerTimestamp
    /// Every result of ``submit(_:)`` so far, for metrics after the commit.
    private(set) var results: [TransferResult] = []

    init(connection: any SQLConnection, now: LedgerTimestamp) {
        self.connection = connection
        self.now = now
    }

    /// Applies `requests` like ``Ledger/submit(_:)`` (linked chains, idempotent retries, the same
    /// checks and events), inside this transaction.
    public mutating func submit(_ requests: [TransferRequest]) throws -> [TransferResult] {
        guard !requests.isEmpty else { return [] }
        var batch = try LedgerStore.loadBatch(requests: requests, expiring: [], on: connection, now: now.nanoseconds)
        let applied = batch.apply(requests)
        try LedgerStore.save(batch, on: connection)
        results += applied
        return applied
    }

    /// Applies one transfer inside this transaction.
    public mutating func submit(_ request: TransferRequest) throws -> TransferResult {
        try submit([request])[0]
    }

    /// A hold's status as this transaction sees it (locked on PostgreSQL until the commit).
    public func pendingStatus(_ id: TransferID) throws -> PendingStatus? {
        try connection.queryFirst(
            LedgerStore.selectPending + " WHERE transfer_id = $1" + connection.dialect.forUpdate,
            [id.sqlValue]
        ).map(LedgerStore.pendingStatus)
    }
}

extension Ledger {
    /// Runs `body` in one database transaction through the ledger's writer, so the caller's own
    /// rows, its events and the transfers it submits commit together, ordered with every other
    /// ledger write of this process. The body runs alone (never grouped with other callers'
    /// transfers) and must be quick: the writer waits for it.
    ///
    /// ```swift
    /// let session = try await ledger.write { tx in
    ///     var session = try SessionStore.session(id, forUpdate: true, on: tx.connection)
    ///     let result = try tx.submit(TransferRequest(id: holdID, action: .hold(...)))
    ///     guard case .created = result else { throw SessionError.insufficientFunds }
    ///     try SessionStore.lock(&session, on: tx.connection)  // appends its event
    ///     return session
    /// }
    /// ```
    /// - Throws: what `body` throws (then nothing of it was written), ``LedgerError/writerNotRunning``,
    ///   or a ``DatabaseError``.
    public func write<Value: Sendable>(_ body: @escaping @Sendable (inout LedgerTransaction) throws -> Value) async throws -> Value {
        let (value, results) = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(any Sendable), any Error>) in
            writer.enqueue(
                .exclusive(
                    LedgerWriter.ExclusiveWork(
                        body: { connection, now in
                            var transaction = LedgerTransaction(connection: connection, now: LedgerTimestamp(nanoseconds: now))
                            let value = try body(&transaction)
                            return (value, transaction.results) as (Value, [TransferResult])
                        },
                        finish: { continuation.resume(with: $0) }
                    )
                )
            )
        } as! (Value, [TransferResult])
        observer.recorded(results)
        // The body may have appended events of its own even when no transfer was created.
        observer.onCommit()
        return value
    }
}
