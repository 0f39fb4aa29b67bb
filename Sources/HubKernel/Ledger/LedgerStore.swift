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

    static let selectTransfers = "SELECT \(transferColumns.joined(separator: ", ")) FROM ledger_transfers"
    static let selectAccounts = "SELECT \(accountColumns.joined(separator: ", ")) FROM ledger_accounts"
    static let selectPending = "SELECT \(pendingColumns.joined(separator: ", ")) FROM ledger_pending"

    // MARK: Rows

    static func transfer(_ row: SQLRow) throws -> Transfer {
        let kindText = try row.text(2)
        guard let kind = Transfer.Kind(rawValue: kindText) else {
            throw DatabaseError(.decode, "unknown transfer kind '\(kindText)'")
        }
        let assetText = try row.text(6)
        guard let asset = AssetCode(assetText) else { throw DatabaseError(.decode, "bad asset code '\(assetText)'") }
        var reference: TransferReference?
        if let rail = try row.optionalText(10) {
            reference = TransferReference(rail: rail, type: try row.text(11), id: try row.text(12))
        }
        return Transfer(
            id: try TransferID(row: row, 0),
            kind: kind,
            debitAccountID: try AccountID(row: row, 3),
            creditAccountID: try AccountID(row: row, 4),
            amount: try row.uint128(5),
            asset: asset,
            pendingID: row.isNull(7) ? nil : try TransferID(row: row, 7),
            timeoutSeconds: UInt32(clamping: try row.int(8)),
            linked: try row.int(9) != 0,
            reference: reference,
            metadata: try decodeMetadata(try row.text(13)),
            timestamp: try LedgerTimestamp(row: row, 1)
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
        let assetText = try row.text(1)
        guard let asset = AssetCode(assetText) else { throw DatabaseError(.decode, "bad asset code '\(assetText)'") }
        let kindText = try row.text(2)
        guard let kind = AccountOwner.Kind(rawValue: kindText) else {
            throw DatabaseError(.decode, "unknown owner kind '\(kindText)'")
        }
        return Account(
            id: try AccountID(row: row, 0),
            asset: asset,
            owner: AccountOwner(kind: kind, id: try row.text(3)),
            code: try row.text(4),
            flags: AccountFlags(rawValue: UInt16(truncatingIfNeeded: try row.int(5))),
            debitsPosted: try row.uint128(6),
            creditsPosted: try row.uint128(7),
            debitsPending: try row.uint128(8),
            creditsPending: try row.uint128(9),
            metadata: try decodeMetadata(try row.text(10)),
            createdAt: try LedgerTimestamp(row: row, 11),
            rail: try row.optionalText(12)
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
        let stateText = try row.text(1)
        guard let state = PendingState(rawValue: stateText) else {
            throw DatabaseError(.decode, "unknown pending state '\(stateText)'")
        }
        return PendingStatus(
            transferID: try TransferID(row: row, 0),
            state: state,
            expiresAt: row.isNull(2) ? nil : try LedgerTimestamp(row: row, 2),
            resolvedBy: row.isNull(3) ? nil : try TransferID(row: row, 3),
            resolvedAt: row.isNull(4) ? nil : try LedgerTimestamp(row: row, 4)
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

        var transferKeys = Set<TransferID>()
        var accountKeys = Set<AccountID>()
        var pendingKeys = Set<TransferID>(expiring)
        for request in requests {
            transferKeys.insert(request.id)
            switch request.action {
            case .post(let debit, let credit, _, _), .hold(let debit, let credit, _, _, _):
                accountKeys.insert(debit)
                accountKeys.insert(credit)
            case .postPending(let pendingID, _), .voidPending(let pendingID):
                pendingKeys.insert(pendingID)
            }
        }
        transferKeys.formUnion(pendingKeys)

        var transfers: [TransferID: Transfer] = [:]
        for row in try connection.selectIn(selectTransfers + " WHERE id", keys: transferKeys.map(\.sqlValue)) {
            let t = try transfer(row)
            transfers[t.id] = t
        }
        var pending: [TransferID: PendingStatus] = [:]
        let storedHolds = pendingKeys.filter { transfers[$0]?.kind == .pending }
        for row in try connection.selectIn(
            selectPending + " WHERE transfer_id",
            keys: storedHolds.map(\.sqlValue),
            suffix: connection.dialect.forUpdate
        ) {
            let status = try pendingStatus(row)
            pending[status.transferID] = status
        }
        for id in storedHolds {
            let hold = transfers[id]!
            accountKeys.insert(hold.debitAccountID)
            accountKeys.insert(hold.creditAccountID)
        }
        var accounts: [AccountID: Account] = [:]
        // Sorted keys take row locks in one global order, so two hubd processes cannot deadlock.
        for row in try connection.selectIn(
            selectAccounts + " WHERE id",
            keys: accountKeys.sorted().map(\.sqlValue),
            suffix: connection.dialect.forUpdate
        ) {
            let a = try account(row)
            accounts[a.id] = a
        }
        return LedgerBatch(accounts: accounts, transfers: transfers, pending: pending, lastTimestamp: lastTimestamp, now: now)
    }

    /// Writes the four balances of `accounts` back. PostgreSQL gets multi-row upserts (few round
    /// trips); SQLite a prepared single-row `UPDATE`, which is cheaper there than an upsert.
    static func writeBalances(_ accounts: [Account], on connection: any SQLConnection) throws {
        switch connection.dialect {
        case .sqlite:
            for account in accounts {
                try connection.execute(
                    "UPDATE ledger_accounts SET debits_posted = $1, credits_posted = $2, debits_pending = $3, credits_pending = $4 WHERE id = $5",
                    [
                        .uint128(account.debitsPosted), .uint128(account.creditsPosted), .uint128(account.debitsPending),
                        .uint128(account.creditsPending), account.id.sqlValue,
                    ]
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

    /// Writes back what the batch changed, its events, and the timestamp counter.
    static func save(_ batch: LedgerBatch, on connection: any SQLConnection) throws {
        try connection.insertMany(into: "ledger_transfers", columns: transferColumns, rows: batch.created.map(values))
        try connection.insertMany(
            into: "ledger_pending",
            columns: pendingColumns,
            rows: batch.dirtyPending.map { values(batch.pending[$0]!) },
            suffix: "ON CONFLICT (transfer_id) DO UPDATE SET state = excluded.state, resolved_by = excluded.resolved_by, "
                + "resolved_at = excluded.resolved_at"
        )
        try writeBalances(batch.dirtyAccounts.map { batch.accounts[$0]! }, on: connection)
        try EventLog.append(batch.events, on: connection)
        try Counters.write(.ledgerTimestamp, Int64(bitPattern: batch.lastTimestamp), on: connection)
    }
}
