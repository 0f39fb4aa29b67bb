/// The kernel's tables. Portable templates: see ``SQLDialect/ddl(_:)`` for the type tokens.
enum KernelMigrations {
    /// Every kernel migration in the order it is applied. Names carry a global number so that the
    /// history reads in order whichever part of the kernel a table belongs to.
    static let all: [Migration] = ledger + IdentityMigrations.all + WebhookMigrations.all + HTTPMigrations.all + ledgerAdditions

    static let ledger: [Migration] = [
        Migration(
            "001_counters_and_events",
            portable: """
                CREATE TABLE hub_counters (
                    name TEXT PRIMARY KEY,
                    value {bigint} NOT NULL
                );
                INSERT INTO hub_counters (name, value) VALUES ('event_sequence', 0), ('ledger_timestamp', 0);
                CREATE TABLE hub_events (
                    sequence {bigint} PRIMARY KEY,
                    id TEXT NOT NULL,
                    type TEXT NOT NULL,
                    source TEXT NOT NULL,
                    subject TEXT,
                    time TEXT NOT NULL,
                    data TEXT NOT NULL
                );
                CREATE INDEX hub_events_type ON hub_events (type, sequence);
                """
        ),
        Migration(
            "002_ledger",
            portable: """
                CREATE TABLE ledger_assets (
                    code TEXT PRIMARY KEY,
                    scale INTEGER NOT NULL CHECK (scale BETWEEN 0 AND 38),
                    name TEXT NOT NULL,
                    issuance_account_id {id} NOT NULL,
                    created_at {bigint} NOT NULL
                );
                CREATE TABLE ledger_accounts (
                    id {id} PRIMARY KEY,
                    asset TEXT NOT NULL REFERENCES ledger_assets (code),
                    owner_kind TEXT NOT NULL,
                    owner_id TEXT NOT NULL,
                    code TEXT NOT NULL,
                    flags INTEGER NOT NULL,
                    debits_posted {u128} NOT NULL,
                    credits_posted {u128} NOT NULL,
                    debits_pending {u128} NOT NULL,
                    credits_pending {u128} NOT NULL,
                    metadata TEXT NOT NULL,
                    created_at {bigint} NOT NULL
                );
                CREATE INDEX ledger_accounts_owner ON ledger_accounts (owner_kind, owner_id);
                CREATE TABLE ledger_transfers (
                    id {id} PRIMARY KEY,
                    timestamp {bigint} NOT NULL,
                    kind TEXT NOT NULL,
                    debit_account_id {id} NOT NULL,
                    credit_account_id {id} NOT NULL,
                    amount {u128} NOT NULL,
                    asset TEXT NOT NULL,
                    pending_id {id},
                    timeout_seconds {bigint} NOT NULL,
                    linked INTEGER NOT NULL,
                    ref_rail TEXT,
                    ref_type TEXT,
                    ref_id TEXT,
                    metadata TEXT NOT NULL
                );
                CREATE INDEX ledger_transfers_timestamp ON ledger_transfers (timestamp);
                CREATE INDEX ledger_transfers_debit ON ledger_transfers (debit_account_id, timestamp);
                CREATE INDEX ledger_transfers_credit ON ledger_transfers (credit_account_id, timestamp);
                CREATE INDEX ledger_transfers_ref ON ledger_transfers (ref_rail, ref_type, ref_id) WHERE ref_rail IS NOT NULL;
                CREATE TABLE ledger_pending (
                    transfer_id {id} PRIMARY KEY,
                    state TEXT NOT NULL,
                    expires_at {bigint},
                    resolved_by {id},
                    resolved_at {bigint}
                );
                CREATE INDEX ledger_pending_expiry ON ledger_pending (expires_at) WHERE state = 'pending';
                """
        ),
    ]

    /// Later changes to the ledger tables (numbered after the parts above, applied after them).
    static let ledgerAdditions: [Migration] = [
        // The user who organises an asset: may mint it through its issuance account and manage its
        // accounts. NULL for assets created by admins or by rails.
        Migration("006_asset_organiser", portable: "ALTER TABLE ledger_assets ADD COLUMN organiser_id TEXT;"),
        // The rail that owns an asset or manages an account: only transfers naming that rail move
        // it (LedgerBatch+RailOwnership). NULL for the kernel's own assets and accounts.
        Migration(
            "007_rail_ownership",
            portable: "ALTER TABLE ledger_assets ADD COLUMN rail TEXT; ALTER TABLE ledger_accounts ADD COLUMN rail TEXT;"
        ),
        // (Later changes to any kernel table go here, after every part above.) A rotated webhook
        // secret keeps signing, beside the new one, until it expires (Standard Webhooks' overlap).
        Migration(
            "008_webhook_previous_secret",
            portable: """
                ALTER TABLE hub_webhook_endpoints ADD COLUMN previous_secret TEXT;
                ALTER TABLE hub_webhook_endpoints ADD COLUMN previous_secret_expires_at {bigint};
                """
        ),
        // The secrets vault (DESIGN §3.5): JWT keys, webhook secrets, rails' keys, sealed.
        SecretsMigrations.vault,
        // Failed sign-ins per account, account and address, and address (SignInLimits).
        SignInLimits.migration,
        // Leases that elect one instance for work done once (Lease, LeaderService).
        Lease.migration,
    ]
}
