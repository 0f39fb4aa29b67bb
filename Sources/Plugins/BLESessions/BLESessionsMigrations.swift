import Foundation
import HubKernel

/// The rail's tables (migration group `ble-sessions`). Final once released: a change is a new
/// migration appended to the list. Ledger ids are stored as their UUID text.
enum BLESessionsMigrations {
    static let all: [Migration] = [sessions, locks, eids, liveIndexes]

    static let sessions = Migration("001_sessions") { dialect in
        let serial =
            switch dialect {
            case .sqlite: "INTEGER PRIMARY KEY"
            case .postgres: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
            }
        let template = """
            CREATE TABLE ble_sessions_sessions (
                seq {serial},
                id TEXT NOT NULL UNIQUE,
                payee_id TEXT NOT NULL,
                payee_account_id TEXT NOT NULL,
                payee_display_name TEXT NOT NULL,
                asset TEXT NOT NULL,
                amount {u128} NOT NULL,
                split_mode TEXT NOT NULL CHECK (split_mode IN ('single', 'equal')),
                shares {bigint} NOT NULL CHECK (shares >= 1),
                paid_shares {bigint} NOT NULL,
                held_shares {bigint} NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('advertising', 'locked', 'partially_paid', 'paid', 'expired', 'cancelled')),
                eid TEXT NOT NULL,
                eid_issued_at {bigint} NOT NULL,
                created_at {bigint} NOT NULL,
                expires_at {bigint} NOT NULL,
                ended_at {bigint}
            );
            CREATE INDEX ble_sessions_sessions_open ON ble_sessions_sessions (status, expires_at);
            CREATE INDEX ble_sessions_sessions_payee ON ble_sessions_sessions (payee_id, seq);
            """
        return dialect.ddl(template.replacingOccurrences(of: "{serial}", with: serial))
    }

    static let locks = Migration(
        "002_locks",
        portable: """
            CREATE TABLE ble_sessions_locks (
                id TEXT PRIMARY KEY,
                session_id TEXT NOT NULL REFERENCES ble_sessions_sessions (id),
                share {bigint} NOT NULL,
                payer_id TEXT NOT NULL,
                payer_account_id TEXT NOT NULL,
                amount {u128} NOT NULL,
                hold_id TEXT NOT NULL UNIQUE,
                state TEXT NOT NULL CHECK (state IN ('held', 'paid', 'expired', 'released')),
                locked_at {bigint} NOT NULL,
                expires_at {bigint} NOT NULL,
                resolved_at {bigint},
                payment_id TEXT
            );
            CREATE INDEX ble_sessions_locks_session ON ble_sessions_locks (session_id, state);
            CREATE INDEX ble_sessions_locks_due ON ble_sessions_locks (state, expires_at);
            """
    )

    /// Every EID a session advertised. The current one resolves until the session ends; a replaced
    /// one until `valid_until` (the grace period). The key keeps an EID from ever naming two sessions.
    static let eids = Migration(
        "003_eids",
        portable: """
            CREATE TABLE ble_sessions_eids (
                eid TEXT PRIMARY KEY,
                session_id TEXT NOT NULL REFERENCES ble_sessions_sessions (id),
                issued_at {bigint} NOT NULL,
                valid_until {bigint}
            );
            CREATE INDEX ble_sessions_eids_session ON ble_sessions_eids (session_id);
            """
    )

    /// Indexes that leave a row's state out of their keys, so that a step that changes a state
    /// adds fewer index entries. Locking a session changes its status and held shares only; with
    /// no index naming them (and room left on each page by the fill factor) PostgreSQL updates
    /// the row in place, a heap-only tuple, without a new entry in any index. Ending a session
    /// or resolving a lock leaves the partial indexes of live rows, instead of adding an entry to
    /// an index of every row. The sweeper's queries name the partial indexes' conditions.
    static let liveIndexes = Migration("004_live_indexes") { dialect in
        let indexes = """
            DROP INDEX ble_sessions_sessions_open;
            CREATE INDEX ble_sessions_sessions_live ON ble_sessions_sessions (expires_at) WHERE ended_at IS NULL;
            DROP INDEX ble_sessions_locks_session;
            CREATE INDEX ble_sessions_locks_session ON ble_sessions_locks (session_id);
            DROP INDEX ble_sessions_locks_due;
            CREATE INDEX ble_sessions_locks_held ON ble_sessions_locks (expires_at) WHERE state = 'held';
            """
        return switch dialect {
        case .sqlite: indexes
        // Applies to pages written from now on: enough for rows that live minutes.
        case .postgres: indexes + "\nALTER TABLE ble_sessions_sessions SET (fillfactor = 80);"
        }
    }
}
