import Foundation

/// Which SQL engine a connection speaks. Statements use `$1…$n` placeholders on both.
public enum SQLDialect: String, Sendable, CaseIterable {
    case sqlite
    case postgres

    /// Rewrites the type tokens of a portable DDL template for this dialect:
    /// `{id}` (16-byte identifiers), `{u128}` (unsigned 128-bit amounts), `{bigint}`, `{bytes}`.
    public func ddl(_ template: String) -> String {
        let map: [(String, String)] =
            switch self {
            case .sqlite: [("{id}", "BLOB"), ("{u128}", "BLOB"), ("{bigint}", "INTEGER"), ("{bytes}", "BLOB")]
            case .postgres: [("{id}", "BYTEA"), ("{u128}", "NUMERIC(39,0)"), ("{bigint}", "BIGINT"), ("{bytes}", "BYTEA")]
            }
        var out = template
        for (token, type) in map { out = out.replacingAll(token, with: type) }
        return out
    }

    /// `FOR UPDATE` where row locks exist (PostgreSQL); SQLite's write transaction already excludes
    /// every other writer.
    public var forUpdate: String { self == .postgres ? " FOR UPDATE" : "" }
}

/// A single database connection. Synchronous and blocking: it is only ever used from the one
/// thread of the ``DatabaseWorker`` that opened it, never from Swift's cooperative pool.
public protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }

    /// Runs one statement with bound values and returns the number of rows it changed. Callers
    /// write statements as ``SQL`` (values bound by interpolation); this is what backends implement.
    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) throws -> Int

    /// Runs one statement with bound values and returns its rows.
    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow]

    /// Runs a script of several statements with no bound values (migrations only).
    func executeScript(_ sql: String) throws

    /// Runs a statement whose outcome the caller does not read before its next statement: a
    /// backend may send it on without waiting (PostgreSQL pipelines it, one round trip for all
    /// such statements and the next one that is read). An error it causes is thrown by that next
    /// statement, still inside the same transaction (and savepoint).
    func executeDeferred(_ sql: String, _ binds: [SQLValue]) throws

    /// Runs queries that do not depend on each other's results and returns each one's rows, in
    /// order: a backend may send them together (PostgreSQL pipelines them, one round trip).
    func queries(_ statements: [(sql: String, binds: [SQLValue])]) throws -> [[SQLRow]]
}

extension SQLConnection {
    /// Backends that cannot defer run the statement at once.
    public func executeDeferred(_ sql: String, _ binds: [SQLValue]) throws {
        try execute(sql, binds)
    }

    /// Backends that cannot pipeline run the queries one after another.
    public func queries(_ statements: [(sql: String, binds: [SQLValue])]) throws -> [[SQLRow]] {
        try statements.map { try query($0.sql, $0.binds) }
    }
}

extension SQLConnection {
    /// The first row of a query with hand-bound values, if any.
    public func queryFirst(_ sql: String, _ binds: [SQLValue]) throws -> SQLRow? {
        try query(sql, binds).first
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = self[...]
        while let range = rest.range(of: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        out += rest
        return out
    }
}

extension SQLConnection {
    /// Runs one statement written with ``SQL`` interpolation; returns the number of rows it changed.
    @discardableResult
    public func execute(_ statement: SQL) throws -> Int {
        let (text, binds) = statement.rendered
        return try execute(text, binds)
    }

    /// Runs one query written with ``SQL`` interpolation and returns its rows.
    public func query(_ statement: SQL) throws -> [SQLRow] {
        let (text, binds) = statement.rendered
        return try query(text, binds)
    }

    /// ``queries(_:)-(_)`` written with ``SQL`` interpolation: independent reads in one round trip.
    public func queries(_ statements: [SQL]) throws -> [[SQLRow]] {
        try queries(
            statements.map { statement in
                let (text, binds) = statement.rendered
                return (sql: text, binds: binds)
            }
        )
    }

    /// ``executeDeferred(_:_:)`` written with ``SQL`` interpolation.
    public func executeDeferred(_ statement: SQL) throws {
        let (text, binds) = statement.rendered
        try executeDeferred(text, binds)
    }

    /// The first row of a query, if any.
    public func queryFirst(_ statement: SQL) throws -> SQLRow? {
        try query(statement).first
    }
}

extension SQL {
    /// ` FOR UPDATE` on PostgreSQL (row locks until the commit); nothing on SQLite, whose write
    /// transaction already excludes every other writer.
    public static func forUpdate(_ dialect: SQLDialect) -> SQL {
        dialect == .postgres ? " FOR UPDATE" : ""
    }

    /// Keyset paging: ` AND <column> > cursor ORDER BY <column> LIMIT n` (the column must be
    /// unique and indexed; the caller's query already has a `WHERE`).
    public static func page(after cursor: some SQLBindable, by column: SQLIdentifier, limit: Int) -> SQL {
        " AND \(identifier: column) > \(cursor) ORDER BY \(identifier: column) LIMIT \(limit)"
    }
}
