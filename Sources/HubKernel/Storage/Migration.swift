import Foundation

/// The owner of a list of migrations: the kernel, or one plugin. Groups are independent of each
/// other; within a group migrations apply in order.
public struct MigrationGroup: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    /// The prefix every table a migration of this group names must start with; `nil` for the
    /// kernel's own groups.
    public let tablePrefix: String?

    /// A group whose migrations may name any table: the kernel's, or a test's.
    public init(_ name: String) {
        self.name = name
        self.tablePrefix = nil
    }

    /// A plugin's group: its migrations are held to its table prefix, as its units of work are.
    public static func rail(_ pluginID: String) -> MigrationGroup {
        MigrationGroup(name: pluginID, tablePrefix: PluginID.tablePrefix(pluginID))
    }

    private init(name: String, tablePrefix: String?) {
        self.name = name
        self.tablePrefix = tablePrefix
    }

    public var description: String { name }

    public static func == (lhs: MigrationGroup, rhs: MigrationGroup) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    public static let kernel = MigrationGroup("kernel")
}

/// One named schema change. Its SQL is a portable template (see ``SQLDialect/ddl(_:)``) or,
/// where the engines differ, one text per dialect.
///
/// A plugin's migration names only tables of the plugin's prefix; the kernel refuses one that
/// names any other (``UnitError/foreignTable(_:prefix:statement:)``) before it changes anything.
/// The one way past that is ``foreignTables``: a data migration of kernel rows the plugin owns
/// (which rail an asset belongs to, say), each such table named in the migration's declaration,
/// where a reviewer sees it.
public struct Migration: Sendable {
    public let name: String
    public let sql: @Sendable (SQLDialect) -> String
    /// Tables outside its group's prefix that this migration is allowed to name.
    public let foreignTables: Set<String>

    /// A migration whose DDL template serves both dialects; `alsoWrites` names the tables outside
    /// its plugin's prefix it may touch (none, nearly always).
    public init(_ name: String, portable template: String, alsoWrites foreignTables: Set<String> = []) {
        self.name = name
        self.sql = { $0.ddl(template) }
        self.foreignTables = foreignTables
    }

    /// A migration with a different script per dialect.
    public init(_ name: String, alsoWrites foreignTables: Set<String> = [], sql: @escaping @Sendable (SQLDialect) -> String) {
        self.name = name
        self.sql = sql
        self.foreignTables = foreignTables
    }
}

/// Where a database stands against the migrations this build knows.
public struct MigrationStatus: Sendable, Equatable {
    /// Migrations known here and not yet applied, per group, in order.
    public var pending: [String: [String]]
    public var isCurrent: Bool { pending.values.allSatisfy(\.isEmpty) }
}

/// Applies and checks migrations, recording each in `hub_migrations` in the same transaction as
/// its DDL, so a crash leaves either both or neither.
public struct Migrator: Sendable {
    public let groups: [(group: MigrationGroup, migrations: [Migration])]

    public init(_ groups: [(group: MigrationGroup, migrations: [Migration])]) {
        var seen = Set<MigrationGroup>()
        for entry in groups {
            precondition(seen.insert(entry.group).inserted, "migration group \(entry.group) registered twice")
        }
        self.groups = groups
    }

    private static let historyTable: SQL = """
        CREATE TABLE IF NOT EXISTS hub_migrations (
            group_name TEXT NOT NULL,
            position INTEGER NOT NULL,
            name TEXT NOT NULL,
            applied_at TEXT NOT NULL,
            PRIMARY KEY (group_name, position)
        )
        """

    /// Compares the recorded history with the known list. Throws ``DatabaseError/Kind/schemaTooNew``
    /// when the database holds migrations this build does not know, and
    /// ``DatabaseError/Kind/migrationHistory`` when the names disagree.
    public func status(of database: Database) async throws -> MigrationStatus {
        let groups = self.groups.map { ($0.group, $0.migrations.map(\.name)) }
        return try await database.write { connection in
            if connection.dialect == .postgres { try connection.execute("SELECT pg_advisory_xact_lock(7041532)") }
            try connection.execute(Self.historyTable)
            var pending: [String: [String]] = [:]
            for (group, names) in groups {
                let applied = try Self.appliedNames(group, connection)
                try Self.checkHistory(group: group, applied: applied, known: names)
                pending[group.name] = Array(names.dropFirst(applied.count))
            }
            return MigrationStatus(pending: pending)
        }
    }

    /// Applies every pending migration and returns their names as `group/name`.
    @discardableResult
    public func migrate(_ database: Database) async throws -> [String] {
        var applied: [String] = []
        for (group, migrations) in groups {
            let names = migrations.map(\.name)
            while true {
                // One migration per transaction; the history is re-read under the write lock so
                // two processes migrating at once cannot both apply the same step.
                let step: String? = try await database.write { connection in
                    // The lock first: `CREATE TABLE IF NOT EXISTS` is not safe against a concurrent
                    // creator on PostgreSQL (both pass the check, one fails on pg_type's unique index).
                    if connection.dialect == .postgres {
                        try connection.execute("SELECT pg_advisory_xact_lock(7041532)")
                    }
                    try connection.execute(Self.historyTable)
                    let done = try Self.appliedNames(group, connection)
                    try Self.checkHistory(group: group, applied: done, known: names)
                    guard done.count < migrations.count else { return nil }
                    let migration = migrations[done.count]
                    let held =
                        group.tablePrefix.map {
                            PrefixedConnection(connection, prefix: $0, alsoAllowed: migration.foreignTables) as any SQLConnection
                        } ?? connection
                    try held.executeScript(migration.sql(connection.dialect))
                    let appliedAt = ISO8601DateFormatter().string(from: Date())
                    try connection.execute(
                        """
                        INSERT INTO hub_migrations (group_name, position, name, applied_at) \
                        VALUES (\(group.name), \(done.count), \(migration.name), \(appliedAt))
                        """
                    )
                    return "\(group.name)/\(migration.name)"
                }
                guard let step else { break }
                applied.append(step)
            }
        }
        return applied
    }

    /// Throws unless the database is exactly at this build's schema.
    public func requireCurrent(_ database: Database) async throws {
        let status = try await status(of: database)
        guard status.isCurrent else {
            let list = status.pending.filter { !$0.value.isEmpty }.map { "\($0.key): \($0.value.joined(separator: ", "))" }
            throw DatabaseError(.schemaTooOld, "the database needs migrations (\(list.sorted().joined(separator: "; "))): run `hubd migrate`")
        }
    }

    private static func appliedNames(_ group: MigrationGroup, _ connection: any SQLConnection) throws -> [String] {
        try connection.query("SELECT name FROM hub_migrations WHERE group_name = \(group.name) ORDER BY position").map { try $0.text("name") }
    }

    private static func checkHistory(group: MigrationGroup, applied: [String], known: [String]) throws {
        for (index, name) in applied.enumerated() {
            guard index < known.count else {
                throw DatabaseError(
                    .schemaTooNew,
                    "the database's '\(group)' schema is newer than this hubd: it has migration '\(name)' (#\(index + 1)) and this build knows \(known.count). Upgrade hubd or use another database."
                )
            }
            guard known[index] == name else {
                throw DatabaseError(
                    .migrationHistory,
                    "migration #\(index + 1) of '\(group)' is recorded as '\(name)' but this build calls it '\(known[index])'"
                )
            }
        }
    }
}
