import Foundation
import HubKernel

/// The tip jar's own tables, applied by the host as migration group `tip-jar` (independent of the
/// kernel's and every other plugin's history). Names are final once released: a later change is
/// a new migration appended to the list, never an edit of an old one.
///
/// Ids of ledger records are stored as their UUID text: a plugin sees them only through their
/// public `description`, and text keeps the table readable by hand.
enum TipJarMigrations {
    static let all: [Migration] = [jars, tips]

    /// Jars. `seq` orders the list for cursor pagination; engines spell an auto-numbered column
    /// differently, so this migration has one script per dialect (the rest is the portable
    /// template, see `SQLDialect.ddl`).
    static let jars = Migration("001_jars") { dialect in
        let serial =
            switch dialect {
            case .sqlite: "INTEGER PRIMARY KEY"
            case .postgres: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
            }
        let template = """
            CREATE TABLE tip_jar_jars (
                seq {serial},
                id TEXT NOT NULL UNIQUE,
                asset TEXT NOT NULL,
                payee_account_id TEXT NOT NULL,
                title TEXT NOT NULL,
                opened_by TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
                total {u128} NOT NULL,
                tip_count {bigint} NOT NULL,
                created_at {bigint} NOT NULL,
                closes_at {bigint},
                closed_at {bigint}
            );
            CREATE INDEX tip_jar_jars_closing ON tip_jar_jars (status, closes_at);
            """
        return dialect.ddl(template.replacingOccurrences(of: "{serial}", with: serial))
    }

    /// One row per ledger transfer counted into a jar, keyed by the transfer's id: the record that
    /// makes counting a retried tip a no-op.
    static let tips = Migration(
        "002_tips",
        portable: """
            CREATE TABLE tip_jar_tips (
                transfer_id TEXT PRIMARY KEY,
                jar_id TEXT NOT NULL REFERENCES tip_jar_jars (id),
                from_account_id TEXT NOT NULL,
                amount {u128} NOT NULL,
                tipped_at {bigint} NOT NULL
            );
            CREATE INDEX tip_jar_tips_jar ON tip_jar_tips (jar_id);
            """
    )
}
