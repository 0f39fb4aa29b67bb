import Foundation
import Logging
import Synchronization

/// The hub's database: one writer connection and a few reader connections, each on its own thread.
///
/// Writes are serialised through the single writer (SQLite admits one writer anyway; on
/// PostgreSQL the ledger's group commit makes one writer fast, and row locks keep other processes
/// correct). Reads run on the readers, round-robin, each in a consistent snapshot.
///
/// ```swift
/// let db = try await Database.open(.sqlite(path: "./var/hub.sqlite"))
/// let count = try await db.read { try $0.queryFirst("SELECT count(*) FROM ledger_accounts")!.int(0) }
/// ```
public final class Database: Sendable {
    public let url: DatabaseURL
    public var dialect: SQLDialect { url.dialect }
    private let writer: DatabaseWorker
    private let readers: [DatabaseWorker]
    private let readerTurn = Atomic<Int>(0)
    /// SQLite's: copies the log into the database file beside the writer.
    private let checkpointer: SQLiteCheckpointer?

    private init(url: DatabaseURL, writer: DatabaseWorker, readers: [DatabaseWorker], checkpointer: SQLiteCheckpointer?) {
        self.url = url
        self.writer = writer
        self.readers = readers
        self.checkpointer = checkpointer
    }

    /// Opens (and for SQLite, creates) the database.
    /// - Parameters:
    ///   - url: where the data lives.
    ///   - readerCount: reader connections besides the writer.
    public static func open(_ url: DatabaseURL, readerCount: Int = 2) async throws -> Database {
        let open: @Sendable () throws -> any SQLConnection
        let openWriter: @Sendable () throws -> any SQLConnection
        var checkpointer: SQLiteCheckpointer?
        switch url {
        case .sqlite(let path):
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty {
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                } catch {
                    throw DatabaseError(.connection, "cannot create the folder \(folder) for the SQLite database: \(error)")
                }
            }
            let walCheckpointer = try await SQLiteCheckpointer(path: path)
            checkpointer = walCheckpointer
            open = { try SQLiteConnection(path: path) }
            openWriter = { try SQLiteConnection(path: path, checkpointer: walCheckpointer) }
        case .postgres(let uri):
            open = { try PostgresConnection(url: uri, role: .reader) }
            openWriter = { try PostgresConnection(url: uri, role: .writer) }
        }
        let writer: DatabaseWorker
        do {
            writer = try await DatabaseWorker(open: openWriter)
        } catch {
            await checkpointer?.close()
            throw error
        }
        var readers: [DatabaseWorker] = []
        do {
            for _ in 0..<max(1, readerCount) { readers.append(try await DatabaseWorker(open: open)) }
        } catch {
            for reader in readers { await reader.close() }
            await writer.close()
            await checkpointer?.close()
            throw error
        }
        return Database(url: url, writer: writer, readers: readers, checkpointer: checkpointer)
    }

    /// Runs `body` in a write transaction on the writer connection: committed when it returns,
    /// rolled back when it throws. The result is often incidental (a statement's row count).
    @discardableResult
    public func write<Result: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> Result) async throws -> Result {
        try await writer.run { connection in try Self.writeTransaction(on: connection, body) }
    }

    /// A write transaction on `connection`, which must be the writer's (on its thread): what
    /// ``write(_:)`` runs, for callers already there (the kernel's writer draining its queue).
    static func writeTransaction<Result>(on connection: any SQLConnection, _ body: (any SQLConnection) throws -> Result) throws -> Result {
        let transaction = (connection as? any TransactionStateHolding)?.transactionState
        transaction?.begin()
        defer { transaction?.end() }
        return try inTransaction(connection, begin: connection.dialect == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN") { connection in
            let result = try body(connection)
            try transaction?.flush(on: connection)
            return result
        }
    }

    /// Runs `body` in a read-only snapshot on a reader connection.
    public func read<Result: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> Result) async throws -> Result {
        try await nextReader().run { connection in
            let begin: SQL = connection.dialect == .sqlite ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
            return try Self.inTransaction(connection, begin: begin, body)
        }
    }

    /// Runs one statement on a reader connection with no transaction around it: a statement reads
    /// one snapshot by itself, so it needs no `BEGIN` and `COMMIT` (on PostgreSQL one round trip
    /// instead of two). Statements that must see the same snapshot go together in ``read(_:)``.
    public func query(_ statement: SQL) async throws -> [SQLRow] {
        try await nextReader().run { connection in try connection.query(statement) }
    }

    private func nextReader() -> DatabaseWorker {
        readers[readerTurn.wrappingAdd(1, ordering: .relaxed).oldValue % readers.count]
    }

    /// Runs `body` on the writer connection outside any transaction (e.g. `VACUUM`, scripts that
    /// manage their own transactions).
    public func withWriterConnection<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLConnection) throws -> Result
    ) async throws -> Result {
        try await writer.run(body)
    }

    /// Closes every connection. Calls after this throw ``DatabaseError/Kind/closed``.
    public func close() async {
        for reader in readers { await reader.close() }
        await writer.close()
        await checkpointer?.close()
    }

    /// What SQLite's checkpointer did beside the writer so far (nothing on PostgreSQL).
    var backgroundCheckpoints: SQLiteCheckpointer.Statistics { checkpointer?.done ?? .init() }

    private static func inTransaction<Result>(
        _ connection: any SQLConnection,
        begin: SQL,
        _ body: (any SQLConnection) throws -> Result
    ) throws -> Result {
        // Sent with the body's first statement (PostgreSQL pipelines it): a round trip less for
        // every transaction. A failure to begin is thrown by that statement.
        try connection.executeDeferred(begin)
        let result: Result
        do {
            result = try body(connection)
        } catch {
            // The body's error is what the caller needs; a failed rollback only means the
            // transaction is already gone.
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
        do {
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
        return result
    }
}
