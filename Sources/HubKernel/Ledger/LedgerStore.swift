import Foundation

/// The ledger's SQL: row mappings, and loading and writing back what one batch touches.
/// Synchronous; always called on a database worker's thread inside a transaction.
enum LedgerStore {
    static let transferColumns = [
        "id", "timestamp", "kind", "debit_account_id", "credit_account_id", "amount", "asset", "pending_id",
        "timeout_seconds", "linked", "ref_rail", "ref_type", "ref_id", "metadata",
    ]
    static let accountColumns = [
        "id", "asset", "owner_kind", "owner_id", "code", "flags", "debits_posted", "credits_posted",
        "debits_pending", "credits_pending", "metadata", "created_at", "rail",
    ]
    static let pendingColumns = ["transfer_id", "state", "expires_at", "resolved_by", "resolved_at"]

    static let selectTransfers: SQL =
        "SELECT id, timestamp, kind, debit_account_id, credit_account_id, amount, asset, pending_id, timeout_seconds, linked, ref_rail, ref_type, ref_id, metadata FROM ledger_transfers"
    static let selectAccounts: SQL =
        "SELECT id, asset, owner_kind, owner_id, code, flags, debits_posted, credits_posted, debits_pending, credits_pending, metadata, created_at, rail FROM ledger_accounts"
    static let selectPending: SQL = "SELECT transfer_id, state, expires_at, resolved_by, resolved_at FROM ledger_pending"

    // MARK: Rows

    static func transfer(_ row: SQLRow) throws -> Transfer {
        let kindText = try row.text("kind")
        guard let kind = Transfer.Kind(rawValue: kindText) else {
            throw DatabaseError(.decode, "unknown transfer kind '\(kindText)'")
        }
        var reference: TransferReference?
        if let rail = try row.optionalText("ref_rail") {
            reference = TransferReference(rail: rail, type: try row.text("ref_type"), id: try row.text("ref_id"))
        }
        return Transfer(
            id: try row.decode("id"),
            kind: kind,
            debitAccountID: try row.decode("debit_account_id"),
            creditAccountID: try row.decode("credit_account_id"),
            amount: try row.uint128("amount"),
            asset: try row.decode("asset"),
            pendingID: try row.decode("pending_id"),
            timeoutSeconds: UInt32(clamping: try row.int("timeout_seconds")),
            linked: try row.decode("linked"),
            reference: reference,
            metadata: try decodeMetadata(try row.text("metadata")),
            timestamp: try row.decode("timestamp")
        )
    }

    static func values(_ t: Transfer) -> [SQLValue] {
        [
            t.id.sqlValue, t.timestamp.sqlValue, .text(t.kind.rawValue), t.debitAccountID.sqlValue, t.creditAccountID.sqlValue,
            .uint128(t.amount), .text(t.asset.rawValue), .optional(t.pendingID?.sqlValue), .int(Int64(t.timeoutSeconds)),
            .int(t.linked ? 1 : 0), .optional(t.reference.map { .text($0.rail) }), .optional(t.reference.map { .text($0.type) }),
            .optional(t.reference.map { .text($0.id) }), .text(JSONWriter.encode(t.metadata)),
        ]
    }

    static func account(_ row: SQLRow) throws -> Account {
        let kindText = try row.text("owner_kind")
        guard let kind = AccountOwner.Kind(rawValue: kindText) else {
            throw DatabaseError(.decode, "unknown owner kind '\(kindText)'")
        }
        return Account(
            id: try row.decode("id"),
            asset: try row.decode("asset"),
            owner: AccountOwner(kind: kind, id: try row.text("owner_id")),
            code: try row.text("code"),
            flags: AccountFlags(rawValue: UInt16(truncatingIfNeeded: try row.int("flags"))),
            debitsPosted: try row.uint128("debits_posted"),
            creditsPosted: try row.uint128("credits_posted"),
            debitsPending: try row.uint128("debits_pending"),
            creditsPending: try row.uint128("credits_pending"),
            metadata: try decodeMetadata(try row.text("metadata")),
            createdAt: try row.decode("created_at"),
            rail: try row.optionalText("rail")
        )
    }

    static func values(_ a: Account) -> [SQLValue] {
        [
            a.id.sqlValue, .text(a.asset.rawValue), .text(a.owner.kind.rawValue), .text(a.owner.id), .text(a.code),
            .int(Int64(a.flags.rawValue)), .uint128(a.debitsPosted), .uint128(a.creditsPosted), .uint128(a.debitsPending),
            .uint128(a.creditsPending), .text(JSONWriter.encode(a.metadata)), a.createdAt.sqlValue, .optional(a.rail.map(SQLValue.text)),
        ]
    }

    static func pendingStatus(_ row: SQLRow) throws -> PendingStatus {
        let stateText = try row.text("state")
        guard let state = PendingState(rawValue: stateText) else {
            throw DatabaseError(.decode, "unknown pending state '\(stateText)'")
        }
        return PendingStatus(
            transferID: try row.decode("transfer_id"),
            state: state,
            expiresAt: try row.decode("expires_at"),
            resolvedBy: try row.decode("resolved_by"),
            resolvedAt: try row.decode("resolved_at")
        )
    }

    static func values(_ p: PendingStatus) -> [SQLValue] {
        [
            p.transferID.sqlValue, .text(p.state.rawValue), .optional(p.expiresAt?.sqlValue), .optional(p.resolvedBy?.sqlValue),
            .optional(p.resolvedAt?.sqlValue),
        ]
    }

    static func decodeMetadata(_ text: String) throws -> [String: String] {
        if text == "{}" { return [:] }
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String] else {
            throw DatabaseError(.decode, "stored metadata is not a JSON object of strings")
        }
        return object
    }

    // MARK: Batch I/O

    /// Loads everything `requests` and `expiring` touch, with row locks on PostgreSQL.
    static func loadBatch(
        requests: [TransferRequest],
        expiring: [TransferID],
        on connection: any SQLConnection,
        now: UInt64
    ) throws -> LedgerBatch {
        let lastTimestamp = UInt64(bitPattern: try Counters.read(.ledgerTimestamp, on: connection))
        var batch = LedgerBatch(accounts: [:], transfers: [:], pending: [:], lastTimestamp: lastTimestamp, now: now)
        try load(requests: requests, expiring: expiring, into: &batch, on: connection)
        return batch
    }

    /// Loads what `requests` and `expiring` touch that `batch` does not hold yet (row-locked on
    /// PostgreSQL) into it: a batch kept through a write transaction reads each row once.
    static func load(
        requests: [TransferRequest],
        expiring: [TransferID],
        into batch: inout LedgerBatch,
        on connection: any SQLConnection
    ) throws {
        var keys = LedgerKeys()
        keys.pending.formUnion(expiring)
        for request in requests { keys.add(request) }
        try load(keys, into: &batch, on: connection)
    }

    /// Loads the rows `keys` name that `batch` does not hold yet (row-locked on PostgreSQL) into
    /// it. A transfer id read and not found is remembered as absent, so that a later load in the
    /// same transaction does not look for it again.
    static func load(_ keys: LedgerKeys, into batch: inout LedgerBatch, on connection: any SQLConnection) throws {
        var accountKeys = keys.accounts
        var pendingKeys = keys.pending
        var transferKeys = keys.transfers.union(pendingKeys)
        transferKeys = transferKeys.filter { batch.transfers[$0] == nil && !batch.absentTransfers.contains($0) }
        pendingKeys = pendingKeys.filter { batch.pending[$0] == nil && !batch.absentTransfers.contains($0) }
        // A hold the batch holds already names its accounts.
        for hold in pendingKeys.compactMap({ batch.transfers[$0] }) where hold.kind == .pending {
            accountKeys.insert(hold.debitAccountID)
            accountKeys.insert(hold.creditAccountID)
        }
        accountKeys = accountKeys.filter { batch.accounts[$0] == nil }

        // The reads go in as few round trips as their dependencies allow (one pipeline each on
        // PostgreSQL): the transfers and the holds' pending rows together, then the accounts. A
        // batch that resolves no hold it lacks knows all its accounts up front, so they join the
        // first trip. Accounts are locked in one statement group, sorted: row locks are then
        // taken in one global order, so two hubd processes cannot deadlock.
        let transferReads = connection.selectInStatements(selectTransfers + " WHERE id", keys: Array(transferKeys))
        let pendingReads = connection.selectInStatements(
            selectPending + " WHERE transfer_id",
            keys: Array(pendingKeys),
            suffix: .forUpdate(connection.dialect)
        )
        let accountReads = { (keys: Set<AccountID>) in
            connection.selectInStatements(selectAccounts + " WHERE id", keys: keys.sorted(), suffix: .forUpdate(connection.dialect))
        }
        let holdsToRead = pendingKeys.filter { batch.transfers[$0] == nil }
        let accountsUpFront = holdsToRead.isEmpty
        let statements = transferReads + pendingReads + (accountsUpFront ? accountReads(accountKeys) : [])
        guard !statements.isEmpty else { return }
        let firstTrip = try connection.queries(statements)
        var results = firstTrip[...]

        var transfers: [TransferID: Transfer] = [:]
        for row in results.prefix(transferReads.count).joined() {
            let t = try transfer(row)
            transfers[t.id] = t
        }
        results = results.dropFirst(transferReads.count)
        var pending: [TransferID: PendingStatus] = [:]
        for row in results.prefix(pendingReads.count).joined() {
            let status = try pendingStatus(row)
            // A pending row stands for a stored hold, which the transfers read found.
            guard (transfers[status.transferID] ?? batch.transfers[status.transferID])?.kind == .pending else { continue }
            pending[status.transferID] = status
        }
        results = results.dropFirst(pendingReads.count)
        if !accountsUpFront {
            for hold in holdsToRead.compactMap({ transfers[$0] }) where hold.kind == .pending {
                for id in [hold.debitAccountID, hold.creditAccountID] where batch.accounts[id] == nil { accountKeys.insert(id) }
            }
            results = try connection.queries(accountReads(accountKeys))[...]
        }
        var accounts: [AccountID: Account] = [:]
        for row in results.joined() {
            let a = try account(row)
            accounts[a.id] = a
        }
        batch.absorb(accounts: accounts, transfers: transfers, pending: pending)
        batch.absentTransfers.formUnion(transferKeys.filter { transfers[$0] == nil })
    }

    /// Writes the four balances of `accounts` back. PostgreSQL gets multi-row upserts (few round
    /// trips); SQLite a prepared single-row `UPDATE`, which is cheaper there than an upsert.
    static func writeBalances(_ accounts: [Account], on connection: any SQLConnection) throws {
        switch connection.dialect {
        case .sqlite:
            for account in accounts {
                try connection.execute(
                    """
                    UPDATE ledger_accounts SET debits_posted = \(account.debitsPosted), credits_posted = \(account.creditsPosted), \
                    debits_pending = \(account.debitsPending), credits_pending = \(account.creditsPending) WHERE id = \(account.id)
                    """
                )
            }
        case .postgres:
            try connection.insertMany(
                into: "ledger_accounts",
                columns: accountColumns,
                rows: accounts.map(values),
                suffix: "ON CONFLICT (id) DO UPDATE SET debits_posted = excluded.debits_posted, credits_posted = excluded.credits_posted, "
                    + "debits_pending = excluded.debits_pending, credits_pending = excluded.credits_pending"
            )
        }
    }

    // MARK: Reads and locks

    /// A hold's status; with `locking`, row-locked on PostgreSQL until the commit.
    static func pendingStatus(_ id: TransferID, locking: Bool, on connection: any SQLConnection) throws -> PendingStatus? {
        let lock: SQL = locking ? .forUpdate(connection.dialect) : ""
        return try connection.queryFirst(selectPending + " WHERE transfer_id = \(id)\(lock)").map(pendingStatus)
    }

    /// The accounts that exist among `ids`, in id order; with `locking`, row-locked on PostgreSQL
    /// (in one global order, so two processes cannot deadlock).
    static func accounts(_ ids: [AccountID], locking: Bool, on connection: any SQLConnection) throws -> [Account] {
        try connection.selectIn(
            selectAccounts + " WHERE id",
            keys: ids.sorted(),
            suffix: locking ? .forUpdate(connection.dialect) : ""
        ).map(account)
    }

    static func transfer(_ id: TransferID, on connection: any SQLConnection) throws -> Transfer? {
        try connection.queryFirst(selectTransfers + " WHERE id = \(id)").map(transfer)
    }

    /// Holds still pending whose timeout has passed at `now`, oldest first.
    static func duePending(at now: LedgerTimestamp, limit: Int, on connection: any SQLConnection) throws -> [TransferID] {
        try connection.query(
            "SELECT transfer_id FROM ledger_pending WHERE state = 'pending' AND expires_at <= \(now) ORDER BY expires_at LIMIT \(limit)"
        ).map { try $0.decode("transfer_id") }
    }

    /// The accounts of `owner` (of one asset, when given) created after `after`, oldest first.
    static func accounts(
        ownedBy owner: AccountOwner,
        asset: AssetCode?,
        after: LedgerTimestamp?,
        limit: Int?,
        on connection: any SQLConnection
    ) throws -> [Account] {
        var sql = selectAccounts + " WHERE owner_kind = \(owner.kind.rawValue) AND owner_id = \(owner.id)"
        if let asset { sql += " AND asset = \(asset)" }
        if let after { sql += " AND created_at > \(after)" }
        sql += " ORDER BY created_at"
        if let limit { sql += " LIMIT \(limit)" }
        return try connection.query(sql).map(account)
    }

    /// Transfers that debit or credit `account`: oldest first after a cursor, or the newest first.
    static func transfers(
        of account: AccountID,
        after: LedgerTimestamp?,
        newestFirst: Bool,
        limit: Int,
        on connection: any SQLConnection
    ) throws -> [Transfer] {
        var sql = selectTransfers + " WHERE (debit_account_id = \(account) OR credit_account_id = \(account))"
        if let after { sql += " AND timestamp > \(after)" }
        sql += newestFirst ? " ORDER BY timestamp DESC" : " ORDER BY timestamp"
        sql += " LIMIT \(limit)"
        return try connection.query(sql).map(transfer)
    }

    /// Accounts in creation order after `after`: of assets `organiser` runs, of one asset, and
    /// owned by users whose id, e-mail or display name matches the LIKE `pattern`, when given.
    static func accounts(
        organisedBy organiser: String?,
        asset: AssetCode?,
        matching pattern: String?,
        after: LedgerTimestamp?,
        limit: Int,
        on connection: any SQLConnection
    ) throws -> [Account] {
        var sql = selectAccounts + " WHERE created_at > \(after ?? LedgerTimestamp(nanoseconds: 0))"
        if let asset { sql += " AND asset = \(asset)" }
        if let organiser { sql += " AND asset IN (SELECT code FROM ledger_assets WHERE organiser_id = \(organiser))" }
        if let pattern {
            sql += """
                 AND (lower(owner_id) LIKE \(pattern) ESCAPE '\\' OR (owner_kind = 'user' AND owner_id IN (\
                SELECT id FROM hub_users WHERE lower(email) LIKE \(pattern) ESCAPE '\\' OR lower(display_name) LIKE \(pattern) ESCAPE '\\')))
                """
        }
        sql += " ORDER BY created_at LIMIT \(limit)"
        return try connection.query(sql).map(account)
    }

    /// Transfers newest first before `before`, from `since` on: of assets `organiser` runs, of
    /// one asset, of one rail (`ref.rail`), when given.
    static func transfers(
        organisedBy organiser: String?,
        asset: AssetCode?,
        rail: String?,
        since: LedgerTimestamp?,
        before: LedgerTimestamp,
        limit: Int,
        on connection: any SQLConnection
    ) throws -> [Transfer] {
        var sql = selectTransfers + " WHERE timestamp < \(before) AND timestamp >= \(since ?? LedgerTimestamp(nanoseconds: 0))"
        if let asset { sql += " AND asset = \(asset)" }
        if let rail { sql += " AND ref_rail = \(rail)" }
        if let organiser { sql += " AND asset IN (SELECT code FROM ledger_assets WHERE organiser_id = \(organiser))" }
        sql += " ORDER BY timestamp DESC LIMIT \(limit)"
        return try connection.query(sql).map(transfer)
    }

    /// Writes back what the batch changed, its events, and the timestamp counter.
    static func save(_ batch: LedgerBatch, on connection: any SQLConnection) throws {
        try writeRows(of: batch, on: connection)
        try EventLog.append(batch.events, on: connection)
        try Counters.write(.ledgerTimestamp, Int64(bitPattern: batch.lastTimestamp), on: connection)
    }

    /// Writes back the transfers the batch created, the holds it changed and its balances.
    static func writeRows(of batch: LedgerBatch, on connection: any SQLConnection) throws {
        try connection.insertMany(into: "ledger_transfers", columns: transferColumns, rows: batch.created.map(values))
        try connection.insertMany(
            into: "ledger_pending",
            columns: pendingColumns,
            rows: batch.dirtyPending.map { values(batch.pending[$0]!) },
            suffix: "ON CONFLICT (transfer_id) DO UPDATE SET state = excluded.state, resolved_by = excluded.resolved_by, "
                + "resolved_at = excluded.resolved_at"
        )
        try writeBalances(batch.dirtyAccounts.map { batch.accounts[$0]! }, on: connection)
    }
}
