import HubKernel

/// Grows a PostgreSQL ledger by plain SQL, for `make bench-scale`'s large steps: funded accounts,
/// then random one-unit transfers between all of them, written server-side by `INSERT … SELECT`
/// over `generate_series`, with the rows the kernel would have written: accounts, their mints,
/// the transfers, one event per account and per transfer (the kernel's JSON, numbered in
/// sequence), balances equal to the transfers' sums, the counters moved past all of it. Growing a
/// hundred million transfers through the kernel's batches takes hours on two cores; what the
/// benchmark measures at each step (64 callers' single transfers, `hubd verify`) still goes
/// through the kernel.
///
/// One transaction: the tables' indexes and constraints are dropped, the rows written, and the
/// same definitions (read from the catalog) built again before the commit, so a failure leaves
/// the ledger as it was. Then `VACUUM ANALYZE` and a checkpoint, so neither lands in a
/// measurement. A bulk-loaded ledger is more compact than a grown one: its indexes are built
/// sorted, and each account row was updated once, not once per transfer.
struct BulkGrowth {
    var asset: Asset
    /// Wallets are `bench-N`, numbered from 0; funded with this much by a mint each.
    var funding: UInt128 = 1 << 60

    static let tables = ["ledger_accounts", "ledger_transfers", "hub_events"]

    /// Adds wallets `bench-existing` to `bench-(accounts - 1)` and `transfers` transfers between
    /// random wallets of all of them.
    func grow(from existing: Int, to accounts: Int, transfers: Int, on database: Database) async throws {
        try await database.withWriterConnection { connection in
            guard connection.dialect == .postgres else { throw BenchError("bulk growth is written for PostgreSQL") }
            try connection.execute("BEGIN", [])
            do {
                // The hub's writer connection prices sequential scans out (its statements go by
                // key); these statements scan whole tables on purpose.
                try connection.execute("SET LOCAL enable_seqscan = on", [])
                try load(from: existing, to: accounts, transfers: transfers, on: connection)
                try connection.execute("COMMIT", [])
            } catch {
                _ = try? connection.execute("ROLLBACK", [])
                throw error
            }
            for table in Self.tables { try connection.execute("VACUUM (ANALYZE) \(table)", []) }
            try connection.execute("CHECKPOINT", [])
        }
    }

    private func load(from existing: Int, to accounts: Int, transfers: Int, on connection: any SQLConnection) throws {
        // Sorts and hashes over tens of millions of rows: memory rather than temporary files.
        try connection.execute("SET LOCAL work_mem = '1GB'", [])
        try connection.execute("SET LOCAL maintenance_work_mem = '2GB'", [])
        let counters = try connection.query("SELECT name, value FROM hub_counters ORDER BY name FOR UPDATE", [])
        func counter(_ name: String) throws -> Int64 {
            guard let row = counters.first(where: { (try? $0.text(0)) == name }) else { throw BenchError("no counter \(name)") }
            return try row.int(1)
        }
        // Every new record takes the next ledger timestamp and the next event sequence number,
        // in the same order: accounts, then their mints, then the transfers. So a record's event
        // is numbered `sequence0 + (timestamp - time0)`.
        let sequence0 = try counter("event_sequence")
        let now = try connection.queryFirst("SELECT (extract(epoch FROM clock_timestamp()) * 1e9)::bigint", [])!.int(0)
        let time0 = max(try counter("ledger_timestamp"), now)
        let added = Int64(accounts - existing)
        let records = 2 * added + Int64(transfers)

        let rebuild = try dropIndexesAndConstraints(on: connection)
        try insertAccounts(from: existing, to: accounts, time0: time0, on: connection)
        try insertMints(after: time0, added: added, on: connection)
        try insertTransfers(transfers, between: accounts, firstTimestamp: time0 + 2 * added + 1, on: connection)
        try insertEvents(after: time0, sequence0: sequence0, on: connection)
        try addBalances(after: time0, on: connection)
        try connection.execute(
            "UPDATE hub_counters SET value = CASE name WHEN 'event_sequence' THEN $1::bigint ELSE $2::bigint END WHERE name IN ('event_sequence', 'ledger_timestamp')",
            [.int(sequence0 + records), .int(time0 + records)]
        )
        for statement in rebuild { try connection.execute(statement, []) }
    }

    /// Drops the three tables' constraints (primary keys, the asset's foreign key) and other
    /// indexes; answers the statements that make them again, indexes first.
    private func dropIndexesAndConstraints(on connection: any SQLConnection) throws -> [String] {
        let tables = Self.tables.map { "'\($0)'::regclass" }.joined(separator: ", ")
        let constraints = try connection.query(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid IN (\(tables)) ORDER BY contype DESC",
            []
        )
        let indexes = try connection.query(
            """
            SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i
            WHERE i.indrelid IN (\(tables)) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
            """,
            []
        )
        var rebuild: [String] = []
        for row in constraints {
            let (table, name, definition) = (try row.text(0), try row.text(1), try row.text(2))
            try connection.execute("ALTER TABLE \(table) DROP CONSTRAINT \(name)", [])
            rebuild.append("ALTER TABLE \(table) ADD CONSTRAINT \(name) \(definition)")
        }
        for row in indexes {
            try connection.execute("DROP INDEX \(try row.text(0))", [])
            rebuild.insert(try row.text(1), at: 0)
        }
        return rebuild
    }

    /// The wallets, with zero balances (``addBalances(after:on:)`` sets them); account k of the
    /// new ones is created at `time0 + k`.
    private func insertAccounts(from existing: Int, to accounts: Int, time0: Int64, on connection: any SQLConnection) throws {
        try connection.execute(
            """
            INSERT INTO ledger_accounts (id, asset, owner_kind, owner_id, code, flags, debits_posted, credits_posted,
                debits_pending, credits_pending, metadata, created_at)
            SELECT uuid_send(gen_random_uuid()), $1, 'user', 'bench-' || n, 'wallet', \(AccountFlags.debitsMustNotExceedCredits.rawValue),
                0, 0, 0, 0, '{}', $2 + n - $3 + 1
            FROM generate_series($3::bigint, $4::bigint - 1) n
            """,
            [.text(asset.code.rawValue), .int(time0), .int(Int64(existing)), .int(Int64(accounts))]
        )
    }

    /// One mint per new wallet from the asset's issuance account, `added` timestamps after the
    /// wallet's creation.
    private func insertMints(after time0: Int64, added: Int64, on connection: any SQLConnection) throws {
        try connection.execute(
            """
            INSERT INTO ledger_transfers (id, timestamp, kind, debit_account_id, credit_account_id, amount, asset, timeout_seconds, linked, metadata)
            SELECT uuid_send(gen_random_uuid()), created_at + $1, 'posted', $2, id, $3, $4, 0, 0, '{}'
            FROM ledger_accounts WHERE created_at > $5
            """,
            [.int(added), asset.issuanceAccountID.sqlValue, .uint128(funding), .text(asset.code.rawValue), .int(time0)]
        )
    }

    /// `count` one-unit transfers between two different random wallets of all `accounts`, with
    /// time-ordered ids (UUIDv7, as the kernel-grown steps use), timestamps from `firstTimestamp`.
    private func insertTransfers(_ count: Int, between accounts: Int, firstTimestamp: Int64, on connection: any SQLConnection) throws {
        try connection.execute(
            """
            CREATE TEMPORARY TABLE bench_wallets ON COMMIT DROP AS
            SELECT substr(owner_id, 7)::bigint AS n, id FROM ledger_accounts
            WHERE asset = $1 AND owner_kind = 'user' AND owner_id LIKE 'bench-%'
            """,
            [.text(asset.code.rawValue)]
        )
        let numbered = try connection.queryFirst("SELECT count(*), count(DISTINCT n), max(n) FROM bench_wallets", [])!
        guard try numbered.int(0) == Int64(accounts), try numbered.int(1) == Int64(accounts), try numbered.int(2) == Int64(accounts - 1) else {
            throw BenchError("the ledger's wallets are not bench-0 to bench-\(accounts - 1)")
        }
        // The subqueries keep each row's random draws to one evaluation (PostgreSQL does not
        // flatten a subquery whose outputs are volatile).
        try connection.execute(
            """
            INSERT INTO ledger_transfers (id, timestamp, kind, debit_account_id, credit_account_id, amount, asset, timeout_seconds, linked, metadata)
            SELECT set_byte(overlay(p.r PLACING substring(int8send(p.ts / 1000000) FROM 3 FOR 6) FROM 1 FOR 6), 6, (get_byte(p.r, 6) & 15) | 112),
                p.ts, 'posted', d.id, c.id, 1, $1, 0, 0, '{}'
            FROM (
                SELECT q.ts, q.r, q.debit, (q.debit + 1 + floor(random() * ($2::bigint - 1))::bigint) % $2::bigint AS credit
                FROM (SELECT $3::bigint + g AS ts, uuid_send(gen_random_uuid()) AS r, floor(random() * $2::bigint)::bigint AS debit
                      FROM generate_series(0::bigint, $4::bigint - 1) g) q
            ) p
            JOIN bench_wallets d ON d.n = p.debit
            JOIN bench_wallets c ON c.n = p.credit
            """,
            [.text(asset.code.rawValue), .int(Int64(accounts)), .int(firstTimestamp), .int(Int64(count))]
        )
    }

    /// One event per new account and transfer, in the kernel's form (`ledger.account.created`
    /// with the account at creation, `ledger.transfer.posted` with the transfer).
    private func insertEvents(after time0: Int64, sequence0: Int64, on connection: any SQLConnection) throws {
        // RFC 3339 in UTC with milliseconds, as the kernel writes times, from nanoseconds.
        func time(_ column: String) -> String {
            """
            to_char(to_timestamp(\(column) / 1000000000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || \
            lpad(((\(column) / 1000000) % 1000)::text, 3, '0') || 'Z'
            """
        }
        func uuid(_ column: String) -> String { "encode(\(column), 'hex')::uuid::text" }
        try connection.execute(
            """
            INSERT INTO hub_events (sequence, id, type, source, subject, time, data)
            SELECT $1 + created_at - $2, gen_random_uuid()::text, 'ledger.account.created', '/ledger', u, t,
                '{"id":"' || u || '","asset":' || to_json(asset)::text || ',"owner_kind":"user","owner_id":"' || owner_id
                || '","code":"wallet","flags":' || flags || ',"debits_posted":"0","credits_posted":"0","debits_pending":"0",'
                || '"credits_pending":"0","metadata":{},"created_at":"' || t || '","rail":null}'
            FROM (SELECT \(uuid("id")) AS u, \(time("created_at")) AS t, * FROM ledger_accounts WHERE created_at > $2) a
            """,
            [.int(sequence0), .int(time0)]
        )
        try connection.execute(
            """
            INSERT INTO hub_events (sequence, id, type, source, subject, time, data)
            SELECT $1 + timestamp - $2, gen_random_uuid()::text, 'ledger.transfer.posted', '/ledger', u, t,
                '{"id":"' || u || '","kind":"posted","debit_account_id":"' || \(uuid("debit_account_id"))
                || '","credit_account_id":"' || \(uuid("credit_account_id")) || '","amount":"' || amount::text
                || '","asset":' || to_json(asset)::text || ',"pending_id":null,"timeout_seconds":0,"linked":false,"ref":null,'
                || '"metadata":{},"timestamp":"' || t || '"}'
            FROM (SELECT \(uuid("id")) AS u, \(time("timestamp")) AS t, * FROM ledger_transfers WHERE timestamp > $2) x
            """,
            [.int(sequence0), .int(time0)]
        )
    }

    /// Adds the new transfers to both sides' posted balances.
    private func addBalances(after time0: Int64, on connection: any SQLConnection) throws {
        try connection.execute(
            """
            UPDATE ledger_accounts a SET debits_posted = a.debits_posted + s.debits, credits_posted = a.credits_posted + s.credits
            FROM (
                SELECT id, sum(debits) AS debits, sum(credits) AS credits FROM (
                    SELECT debit_account_id AS id, amount AS debits, 0 AS credits FROM ledger_transfers WHERE timestamp > $1
                    UNION ALL
                    SELECT credit_account_id, 0, amount FROM ledger_transfers WHERE timestamp > $1
                ) sides GROUP BY id
            ) s
            WHERE a.id = s.id
            """,
            [.int(time0)]
        )
    }
}
