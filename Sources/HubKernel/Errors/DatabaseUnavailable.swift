/// The database cannot be reached just now — a PostgreSQL failover under way, a restart — so
/// the request was not done: a retry in a moment may succeed (on whichever host is the primary
/// then). The transports answer it for a ``DatabaseError`` of kind `connection` or `closed`; any
/// other database error stays the hub's own failure (500), logged with its details.
///
/// When the connection broke at a `COMMIT`, the server may have committed it: a caller that
/// retries with the same `Idempotency-Key` then gets the first answer, never a second write.
public struct DatabaseUnavailable: HubError {
    public let cause: DatabaseError

    /// `error` as unavailability, or nil when it is something else.
    public init?(_ error: any Error) {
        guard let error = error as? DatabaseError, error.kind == .connection || error.kind == .closed else { return nil }
        cause = error
    }

    public var kind: HubErrorKind { .unavailable }
    public var errorCode: String { "database_unavailable" }
    public var message: String {
        "The database cannot be reached just now; retry in a moment (with the same Idempotency-Key for a write)."
    }
}
