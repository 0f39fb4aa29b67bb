/// Ledger writes and a caller's own writes in one database transaction.
///
/// A rail whose state must never disagree with the ledger (the local chain mirrors every executed
/// chain transfer as a ledger transfer) cannot use ``Ledger/submit(_:)``: the group-commit writer
/// commits on its own, so a crash between its commit and the rail's would leave one without the
/// other. ``Ledger/transaction(_:)`` instead hands the caller the write connection inside one
/// transaction; transfers and accounts made through this value are applied by the same code as the
/// writer's (checks, balances, events) and commit or roll back together with the caller's rows and
/// events.
///
/// Not `Sendable`: it lives only inside the closure, on the database worker's thread.
public final class LedgerTransaction {
    /// The transaction's connection, for the caller's own statements (its tables and events).
    public let connection: any SQLConnection
    /// The ledger clock's reading when the transaction began: one time for everything a
    /// transition writes (its rows, its events, its transfers).
    public let now: LedgerTimestamp
    let clock: LedgerClock
    let maxBatchTransfers: Int
    private(set) var results: [TransferResult] = []

    init(connection: any SQLConnection, clock: LedgerClock, maxBatchTransfers: Int) {
        self.connection = connection
        self.clock = clock
        self.now = clock.now()
        self.maxBatchTransfers = maxBatchTransfers
    }

    /// Applies `requests` as ``Ledger/submit(_:)`` would, one result each, within this
    /// transaction. A refused transfer changes nothing; whether that aborts the whole transaction
    /// is the caller's choice (throw to roll everything back).
    public func submit(_ requests: [TransferRequest]) throws -> [TransferResult] {
        guard !requests.isEmpty else { return [] }
        guard requests.count <= maxBatchTransfers else {
            throw TransferError(.batchTooLarge, "a batch holds at most \(maxBatchTransfers) transfers, got \(requests.count)")
        }
        var batch = try LedgerStore.loadBatch(requests: requests, expiring: [], on: connection, now: now.nanoseconds)
        let applied = batch.apply(requests)
        try LedgerStore.save(batch, on: connection)
        results += applied
        return applied
    }

    /// Applies one transfer within this transaction.
    public func submit(_ request: TransferRequest) throws -> TransferResult {
        try submit([request])[0]
    }

    /// Creates accounts as ``Ledger/createAccounts(_:)`` would, within this transaction.
    public func createAccounts(_ accounts: [NewAccount]) throws -> [CreateResult<Account>] {
        guard !accounts.isEmpty else { return [] }
        return try Ledger.createAccounts(accounts, on: connection, clock: clock)
    }

    /// A hold's status as this transaction sees it (row-locked on PostgreSQL until the commit).
    public func pendingStatus(_ id: TransferID) throws -> PendingStatus? {
        try connection.queryFirst(
            LedgerStore.selectPending + " WHERE transfer_id = $1" + connection.dialect.forUpdate,
            [id.sqlValue]
        ).map(LedgerStore.pendingStatus)
    }

    /// The accounts that exist among `ids` (read inside the transaction, with row locks on
    /// PostgreSQL so that a concurrent process cannot change them before this commits).
    public func accounts(_ ids: [AccountID]) throws -> [Account] {
        try connection.selectIn(
            LedgerStore.selectAccounts + " WHERE id",
            keys: ids.sorted().map(\.sqlValue),
            suffix: connection.dialect.forUpdate
        ).map(LedgerStore.account)
    }
}

extension Ledger {
    /// Runs `body` in one write transaction together with the ledger: everything it does through
    /// the ``LedgerTransaction`` (transfers, accounts) and on its connection (the caller's own rows
    /// and `EventLog.append`) commits together, or nothing does when it throws.
    ///
    /// It runs on the database's single writer connection, serialised with the group-commit
    /// writer's batches, but outside them: use it where atomicity with the caller's rows matters,
    /// ``submit(_:)`` for plain transfers. After the commit the event bus is nudged, so streams and
    /// webhooks see the body's own events at once too.
    public func transaction<Result: Sendable>(_ body: @escaping @Sendable (LedgerTransaction) throws -> Result) async throws -> Result {
        let (clock, limit) = (self.clock, configuration.maxBatchTransfers)
        let (result, transferResults) = try await database.write { connection in
            let transaction = LedgerTransaction(connection: connection, clock: clock, maxBatchTransfers: limit)
            let result = try body(transaction)
            return (result, transaction.results)
        }
        observer.recorded(transferResults)
        observer.onCommit()
        return result
    }
}

