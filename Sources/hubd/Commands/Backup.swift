import ArgumentParser
import Foundation
import HubKernel
import HubServer

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a SQLite hub, live, into a new file (PostgreSQL: pg_dump, see the discussion).",
        discussion: """
            The copy is the database as of one moment, taken with SQLite's online backup while hubd
            serves and writes; it is checked with SQLite's integrity check, and `hubd verify
            --database-url sqlite:PATH` proves its ledger. It never overwrites a file.

            The copy does not hold the secrets key file (HUB_SECRETS_KEY_FILE): keep a copy of that
            key apart from the database backups. Without it nothing sealed in the vault opens; with
            it beside every backup, the backups give the secrets away.

            A PostgreSQL hub is backed up with PostgreSQL's own tools, consistent while hubd runs:
              pg_dump --format=custom --file=hub.dump "$HUB_DATABASE_URL"
            and restored, with every hubd stopped, into an empty database:
              pg_restore --no-owner --dbname="$NEW_DATABASE_URL" hub.dump
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The new file to write the copy to.")
    var path: String

    func run() async throws {
        let (configuration, _) = try Bootstrap.configure(databaseFlag: database.databaseURL)
        guard case .sqlite(let source) = configuration.databaseURL else {
            throw ValidationError(
                "hubd backup copies SQLite hubs; back up PostgreSQL with pg_dump --format=custom --file=\(path) \"$HUB_DATABASE_URL\" (see hubd backup --help)"
            )
        }
        let summary: SQLiteBackup.Summary
        do {
            summary = try await SQLiteBackup.copy(from: source, to: path)
        } catch let error as BackupError {
            throw ValidationError(error.description)
        }
        print("backed up \(source) to \(path): \(summary.pages) pages, \(summary.bytes) bytes, integrity ok")
        print("keep \(configuration.secretsKeyFile) (the secrets key) backed up too, apart from this copy")
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replace a stopped SQLite hub's database with a backup (PostgreSQL: pg_restore).",
        discussion: """
            Refuses while any hubd serves the database (each holds a lock on <database>.serving), and
            refuses a backup that fails SQLite's integrity check or is not a hub's. Start hubd with the
            secrets key file of the backed-up hub (HUB_SECRETS_KEY_FILE); `hubd verify` checks the
            restored ledger.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The backup to restore (a file written by hubd backup).")
    var backup: String

    func run() async throws {
        let (configuration, _) = try Bootstrap.configure(databaseFlag: database.databaseURL)
        guard case .sqlite(let target) = configuration.databaseURL else {
            throw ValidationError(
                "hubd restore writes SQLite hubs; restore PostgreSQL with pg_restore --no-owner --dbname=URL \(backup) (see hubd backup --help)"
            )
        }
        guard let lock = try ServingLock.restoring(target) else {
            throw ValidationError("a hubd is serving \(target); stop every hubd on it before restoring")
        }
        let summary: SQLiteBackup.Summary
        do {
            summary = try await SQLiteBackup.restore(from: backup, into: target)
        } catch let error as BackupError {
            throw ValidationError(error.description)
        }
        withExtendedLifetime(lock) {}
        print("restored \(backup) into \(target): \(summary.pages) pages, integrity ok; run hubd verify, then hubd serve")
    }
}
