/// A kernel unit's connection. Before each statement it runs, the ledger rows the transaction's
/// units changed and have not written back yet are written back (``TransactionState/writeLedger(on:)``),
/// so a statement that reads the ledger's tables directly sees them as the transaction left them,
/// the unit's own transfers included.
///
/// A kernel unit that runs no statement of its own (an HTTP transfer with an `Idempotency-Key`:
/// its transfers and its key's record) leaves the rows shared with the rest of its group, written
/// once before the commit. A rail's unit needs none of this: it cannot name the ledger's tables
/// (``PrefixedConnection``).
final class LedgerSyncedConnection: SQLConnection, TransactionStateHolding {
    private let base: any SQLConnection

    init(_ base: any SQLConnection) {
        self.base = base
    }

    var dialect: SQLDialect { base.dialect }

    var transactionState: TransactionState { (base as? any TransactionStateHolding)?.transactionState ?? TransactionState() }

    func execute(_ sql: String, _ binds: [SQLValue]) throws -> Int {
        try writeLedgerBack()
        return try base.execute(sql, binds)
    }

    func executeDeferred(_ sql: String, _ binds: [SQLValue]) throws {
        try writeLedgerBack()
        try base.executeDeferred(sql, binds)
    }

    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        try writeLedgerBack()
        return try base.query(sql, binds)
    }

    func queries(_ statements: [(sql: String, binds: [SQLValue])]) throws -> [[SQLRow]] {
        try writeLedgerBack()
        return try base.queries(statements)
    }

    func executeScript(_ sql: String) throws {
        try writeLedgerBack()
        try base.executeScript(sql)
    }

    private func writeLedgerBack() throws {
        try base.activeTransaction?.writeLedger(on: base)
    }
}
