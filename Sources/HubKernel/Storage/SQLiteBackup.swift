import CSQLite
import Foundation
import NIOPosix

/// Consistent copies of a SQLite hub, taken and put back with SQLite's online backup API while
/// other processes may be writing: the copy is the database as of one moment (one read
/// transaction), never a torn file as `cp` of a live database in WAL mode can be.
///
/// ```swift
/// let copied = try await SQLiteBackup.copy(from: "var/hub.sqlite", to: "/backups/hub-2026-11-25.sqlite")
/// ```
public enum SQLiteBackup {
    /// What a copy holds.
    public struct Summary: Sendable, Equatable {
        /// Database pages copied.
        public var pages: Int
        /// Bytes in the copy.
        public var bytes: Int
    }

    /// Copies the live database at `source` into a new file `destination` and checks the copy's
    /// integrity. Refuses a destination that exists. Runs on a thread of NIO's pool: the copy is
    /// blocking file I/O.
    public static func copy(from source: String, to destination: String) async throws -> Summary {
        try await NIOThreadPool.singleton.runIfActive { try copyBlocking(from: source, to: destination) }
    }

    /// Replaces the database at `target` with the backup at `backup`, after checking that the
    /// backup is a sound hub database. The caller makes sure no hub serves `target` meanwhile.
    public static func restore(from backup: String, into target: String) async throws -> Summary {
        try await NIOThreadPool.singleton.runIfActive { try restoreBlocking(from: backup, into: target) }
    }

    static func copyBlocking(from source: String, to destination: String) throws -> Summary {
        guard FileManager.default.fileExists(atPath: source) else { throw BackupError("no database at \(source)") }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw BackupError("\(destination) exists; a backup never overwrites a file (choose a new name)")
        }
        let from = try open(source, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(from) }
        let to = try open(destination, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var finished = false
        defer {
            sqlite3_close_v2(to)
            if !finished { try? FileManager.default.removeItem(atPath: destination) }
        }
        let pages = try transfer(from: from, to: to, what: "backing up \(source)")
        // The copy is a standalone file: no write-ahead log beside it.
        try execute("PRAGMA journal_mode=DELETE", on: to)
        try checkIntegrity(to, path: destination)
        finished = true
        return Summary(pages: pages, bytes: fileSize(destination))
    }

    static func restoreBlocking(from backup: String, into target: String) throws -> Summary {
        guard FileManager.default.fileExists(atPath: backup) else { throw BackupError("no backup at \(backup)") }
        let from = try open(backup, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(from) }
        try checkIntegrity(from, path: backup)
        guard try hasTable("hub_migrations", on: from) else {
            throw BackupError("\(backup) is a SQLite database but not a hub's (it has no hub_migrations table)")
        }
        let to = try open(target, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        defer { sqlite3_close_v2(to) }
        try execute("PRAGMA journal_mode=WAL", on: to)
        let pages = try transfer(from: from, to: to, what: "restoring \(backup) into \(target)")
        try checkIntegrity(to, path: target)
        return Summary(pages: pages, bytes: fileSize(target))
    }

    /// Every page in one step: one read transaction on the source, so the copy is one moment of
    /// it. A writer holding the destination (or, briefly, the source) is waited for.
    private static func transfer(from source: OpaquePointer, to destination: OpaquePointer, what: String) throws -> Int {
        guard let backup = sqlite3_backup_init(destination, "main", source, "main") else {
            throw BackupError("\(what): \(String(cString: sqlite3_errmsg(destination)))")
        }
        var rc: Int32
        var waited = 0
        repeat {
            rc = sqlite3_backup_step(backup, -1)
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED {
                waited += 1
                usleep(20_000)
            }
        } while (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && waited < 1_500
        let pages = Int(sqlite3_backup_pagecount(backup))
        let finish = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE, finish == SQLITE_OK else {
            let reason = rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? "the database stayed locked for 30 s" : String(cString: sqlite3_errstr(rc))
            throw BackupError("\(what): \(reason)")
        }
        return pages
    }

    private static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    private static func open(_ path: String, flags: Int32) throws -> OpaquePointer {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw BackupError("cannot open \(path): \(message)")
        }
        sqlite3_busy_timeout(db, 30_000)
        return db
    }

    private static func execute(_ sql: String, on db: OpaquePointer) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BackupError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    /// The first text column of each row of `sql`.
    private static func texts(_ sql: String, on db: OpaquePointer) throws -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BackupError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        var rows: [String] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return rows }
            guard rc == SQLITE_ROW else { throw BackupError("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
            rows.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
    }

    private static func checkIntegrity(_ db: OpaquePointer, path: String) throws {
        let report = try texts("PRAGMA integrity_check", on: db)
        guard report == ["ok"] else {
            throw BackupError("\(path) fails SQLite's integrity check: \(report.prefix(5).joined(separator: "; "))")
        }
    }

    private static func hasTable(_ name: String, on db: OpaquePointer) throws -> Bool {
        try texts("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '\(name)'", on: db).count == 1
    }
}

/// Why a backup or a restore was refused or failed, for people.
public struct BackupError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
