/// A connection that sends statements ahead of their results (``SQLConnection/executeDeferred(_:_:)``
/// on PostgreSQL): a deferred statement's error surfaces at a later round trip, maybe while another
/// unit of work runs. Such a connection numbers the statements it sends and remembers the first
/// that failed, so the kernel's writer can tell whose statement it was (``KernelWriter``).
protocol StatementNumbering: AnyObject {
    /// How many statements were sent on this connection: the next one gets this number.
    var statementsSent: Int { get }
    /// The first statement that failed since ``clearFailure()``, and its error.
    var firstFailure: StatementFailure? { get }
    /// Forgets the failure, once the transaction was rolled back to before it.
    func clearFailure()
    /// Waits for the statements sent ahead and drops their results and errors: the transaction
    /// is about to be rolled back to before them. (A failed statement makes the server skip the
    /// rest of its pipeline, so a rollback sent behind them would be skipped too.)
    func discardPending()
}

struct StatementFailure {
    /// The statement's number (``StatementNumbering/statementsSent`` when it was sent).
    var statement: Int
    var error: DatabaseError
}
