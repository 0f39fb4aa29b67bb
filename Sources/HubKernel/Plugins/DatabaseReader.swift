/// The database as a rail sees it: reads only.
///
/// A rail changes state only through a unit of work (``PluginContext/write(_:)``), where the kernel
/// holds it to its table prefix and its event source and group-commits it with every other writer.
/// Handing it the ``Database`` would leave a second, unchecked way to write; this view has no
/// `write`, and the connection inside ``read(_:)`` refuses statements that change anything
/// (PostgreSQL's read-only snapshot would refuse them too, SQLite's reader connections would not).
public struct DatabaseReader: Sendable {
    private let database: Database

    public init(_ database: Database) {
        self.database = database
    }

    public var dialect: SQLDialect { database.dialect }

    /// Runs `body` in a read-only snapshot on a reader connection.
    /// - Throws: ``ReadOnlyViolation`` when `body` runs a statement that could write.
    public func read<Result: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> Result) async throws -> Result {
        try await database.read { connection in try body(ReadOnlyConnection(connection)) }
    }
}

/// A statement that could write, run on a rail's read-only connection.
public struct ReadOnlyViolation: Error, Sendable, CustomStringConvertible {
    public let statement: String

    public var description: String {
        "a rail writes only in a unit of work (PluginContext.write), never while reading: \(statement)"
    }
}

/// A reader connection that runs queries only: `SELECT …`, or `WITH … SELECT …` without a data
/// changing statement inside.
final class ReadOnlyConnection: SQLConnection {
    private let base: any SQLConnection

    init(_ base: any SQLConnection) {
        self.base = base
    }

    var dialect: SQLDialect { base.dialect }

    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        guard Self.isQuery(sql) else { throw ReadOnlyViolation(statement: sql) }
        return try base.query(sql, binds)
    }

    // Statements that return no rows are there to change something: refused outright.
    func execute(_ sql: String, _ binds: [SQLValue]) throws -> Int { throw ReadOnlyViolation(statement: sql) }
    func executeDeferred(_ sql: String, _ binds: [SQLValue]) throws { throw ReadOnlyViolation(statement: sql) }
    func executeScript(_ sql: String) throws { throw ReadOnlyViolation(statement: sql) }

    /// Whether `sql` only reads: it starts with `SELECT` or `WITH` and names no data-changing
    /// verb (`FOR UPDATE` is a read; PostgreSQL refuses it in the read-only snapshot anyway).
    static func isQuery(_ sql: String) -> Bool {
        let tokens = SQLTableNames.tokenize(sql)
        guard let first = tokens.first, first == "select" || first == "with" else { return false }
        for (index, token) in tokens.enumerated() {
            switch token {
            case "insert", "delete", "merge": return false
            case "update" where index == 0 || tokens[index - 1] != "for": return false
            case "replace" where index + 1 < tokens.count && tokens[index + 1] == "into": return false
            default: continue
            }
        }
        return true
    }
}
