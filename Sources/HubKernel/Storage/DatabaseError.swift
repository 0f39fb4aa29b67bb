/// An error from the storage layer.
///
/// `kind` is stable and machine-readable; `message` is for people. `sqlState` carries the
/// PostgreSQL SQLSTATE (or the SQLite extended result code as text) when the database raised it.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ raw: String) { rawValue = raw }
        /// The database could not be opened or reached.
        public static let connection = Kind("connection")
        /// A statement failed to prepare or run.
        public static let query = Kind("query")
        /// A uniqueness, foreign-key or check constraint refused the write.
        public static let constraint = Kind("constraint")
        /// A stored value could not be read as the type asked for.
        public static let decode = Kind("decode")
        /// `HUB_DATABASE_URL` (or another setting) is malformed.
        public static let configuration = Kind("configuration")
        /// The database holds migrations this build does not know: it was written by a newer hubd.
        public static let schemaTooNew = Kind("schema_too_new")
        /// The recorded migration history disagrees with this build's list.
        public static let migrationHistory = Kind("migration_history")
        /// The database's schema is older than this build and `migrate` has not been run.
        public static let schemaTooOld = Kind("schema_too_old")
        /// The database has been closed.
        public static let closed = Kind("closed")
        public var description: String { rawValue }
    }

    public var kind: Kind
    public var message: String
    public var sqlState: String?
    public var sql: String?

    public init(_ kind: Kind, _ message: String, sqlState: String? = nil, sql: String? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.sql = sql
    }

    public var description: String {
        var out = "\(kind): \(message)"
        if let sqlState { out += " [\(sqlState)]" }
        return out
    }
}
