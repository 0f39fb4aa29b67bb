import Synchronization

/// Creating assets and accounts. These are rare next to transfers, so they run as plain write
/// transactions instead of through the group-commit writer; both use the one writer connection,
/// so they are serialised with transfer batches all the same.
extension Ledger {
    /// Creates an asset and its issuance account, or returns the existing asset when the fields
    /// match. A code inside a prefix a rail reserved (``reserveAssetCodes(prefix:rail:)``) is
    /// created only by that rail; an existing asset with another owner is a conflict, never adopted.
    public func createAsset(_ requested: NewAsset) async throws -> CreateResult<Asset> {
        if let owner = assetCodeReservations.rail(reserving: requested.code), owner != requested.rail {
            return .failed(
                TransferError(
                    .assetCodeReserved,
                    "asset codes starting with \(assetCodeReservations.prefix(reserving: requested.code) ?? "") belong to the rail '\(owner)'",
                    field: "code"
                )
            )
        }
        guard requested.scale <= Asset.maximumScale else {
            return .failed(TransferError(.invalidField, "scale must be 0 to \(Asset.maximumScale)", field: "scale"))
        }
        guard (1...128).contains(requested.name.utf8.count) else {
            return .failed(TransferError(.invalidField, "name must be 1 to 128 bytes", field: "name"))
        }
        let new: NewAsset
        do {
            var named = requested
            named.name = try DisplayText.name(requested.name, field: "name", maxLength: 128)
            new = named
        } catch let refusal as DisplayText.Refusal {
            return .failed(TransferError(.invalidField, refusal.message, field: "name"))
        }
        let clock = self.clock
        return try await database.write { connection in
            // Take the ledger's counter lock before looking: two hubd processes creating the same
            // asset on PostgreSQL then see each other's commit instead of colliding on the key.
            let createdAt = try Self.nextTimestamp(connection, clock)
            if let row = try connection.queryFirst(Self.selectAssets + " WHERE code = \(new.code)") {
                let existing = try Self.asset(row)
                if existing.scale != new.scale {
                    return .failed(TransferError(.existsWithDifferentFields, "asset \(new.code) exists with another scale", field: "scale"))
                }
                if existing.name != new.name {
                    return .failed(TransferError(.existsWithDifferentFields, "asset \(new.code) exists with another name", field: "name"))
                }
                if existing.rail != new.rail {
                    // A rail must never take over an asset somebody else created and minted (its
                    // mirror would disagree with the ledger from the first block), nor a kernel
                    // client an asset a rail owns.
                    return .failed(
                        TransferError(
                            .existsWithDifferentFields,
                            "asset \(new.code) exists and is owned by \(existing.rail.map { "the rail '\($0)'" } ?? "the kernel, not a rail")",
                            field: "code"
                        )
                    )
                }
                if existing.organiserID != new.organiserID {
                    return .failed(
                        TransferError(.existsWithDifferentFields, "asset \(new.code) exists with another organiser", field: "organiser_id")
                    )
                }
                return .exists(existing)
            }
            let asset = Asset(
                code: new.code,
                scale: new.scale,
                name: new.name,
                issuanceAccountID: .random(),
                organiserID: new.organiserID,
                createdAt: createdAt,
                rail: new.rail
            )
            try connection.execute(
                """
                INSERT INTO ledger_assets (code, scale, name, issuance_account_id, organiser_id, created_at, rail) \
                VALUES (\(asset.code), \(Int64(asset.scale)), \(asset.name), \(asset.issuanceAccountID), \(asset.organiserID), \(createdAt), \(asset.rail))
                """
            )
            let issuance = Account(
                id: asset.issuanceAccountID,
                asset: asset.code,
                owner: .system("issuance"),
                code: "issuance",
                flags: [],
                debitsPosted: 0,
                creditsPosted: 0,
                debitsPending: 0,
                creditsPending: 0,
                metadata: [:],
                createdAt: createdAt,
                rail: asset.rail
            )
            try connection.insertMany(into: "ledger_accounts", columns: LedgerStore.accountColumns, rows: [LedgerStore.values(issuance)])
            var json = JSONWriter()
            json.beginObject()
            json.field("code", asset.code.rawValue)
            json.key("scale")
            json.int(asset.scale)
            json.field("name", asset.name)
            json.field("issuance_account_id", asset.issuanceAccountID.description)
            json.field("organiser_id", asset.organiserID)
            json.field("rail", asset.rail)
            json.endObject()
            try EventLog.append(
                [
                    NewEvent(type: "ledger.asset.created", source: "/ledger", subject: asset.code.rawValue, data: json.text, time: createdAt),
                    NewEvent(
                        type: "ledger.account.created",
                        source: "/ledger",
                        subject: issuance.id.description,
                        data: LedgerJSON.account(issuance),
                        time: createdAt
                    ),
                ],
                on: connection
            )
            return .created(asset)
        }
    }

    /// Creates accounts, one result each. An id that exists with the same fields is `exists`.
    public func createAccounts(_ accounts: [NewAccount]) async throws -> [CreateResult<Account>] {
        guard accounts.count <= configuration.maxBatchTransfers else {
            throw TransferError(.batchTooLarge, "at most \(configuration.maxBatchTransfers) accounts at once")
        }
        let clock = self.clock
        return try await database.write { connection in
            try Self.createAccounts(accounts, on: connection, clock: clock)
        }
    }

    /// Creates accounts inside a write transaction the caller holds (``Ledger/createAccounts(_:)``
    /// and ``LedgerTransaction/createAccounts(_:)``).
    static func createAccounts(_ accounts: [NewAccount], on connection: any SQLConnection, clock: LedgerClock) throws -> [CreateResult<Account>] {
        // As in createAsset: the counter lock first, so concurrent creators serialise.
        var timestamp = try Self.nextTimestamp(connection, clock)
        let stored = try connection.selectIn(LedgerStore.selectAccounts + " WHERE id", keys: accounts.map(\.id))
        var existing: [AccountID: Account] = [:]
        for row in stored {
            let account = try LedgerStore.account(row)
            existing[account.id] = account
        }
        let assetCodes = Set(accounts.map(\.asset.rawValue)).sorted()
        // Each known asset's owning rail ("" for none): accounts of a rail's asset are that rail's.
        var assetRails: [String: String] = [:]
        for row in try connection.selectIn("SELECT code, rail FROM ledger_assets WHERE code", keys: assetCodes) {
            assetRails[try row.text("code")] = try row.optionalText("rail") ?? ""
        }
        var results: [CreateResult<Account>] = []
        var inserted: [Account] = []
        var events: [NewEvent] = []
        for new in accounts {
            if let prior = existing[new.id] {
                if let field = Self.firstDifference(prior, new) {
                    results.append(
                        .failed(TransferError(.existsWithDifferentFields, "account \(new.id) exists with a different \(field)", field: field))
                    )
                } else {
                    results.append(.exists(prior))
                }
                continue
            }
            if let error = Self.validate(new) {
                results.append(.failed(error))
                continue
            }
            guard let assetRail = assetRails[new.asset.rawValue] else {
                results.append(.failed(TransferError(.assetNotFound, "asset \(new.asset) does not exist", field: "asset")))
                continue
            }
            if !assetRail.isEmpty && new.rail != assetRail {
                results.append(
                    .failed(
                        TransferError(
                            .ownedByRail,
                            "asset \(new.asset) belongs to the rail '\(assetRail)': only that rail opens its accounts",
                            field: "asset"
                        )
                    )
                )
                continue
            }
            let createdAt = timestamp
            timestamp = LedgerTimestamp(nanoseconds: timestamp.nanoseconds + 1)
            let account = Account(
                id: new.id,
                asset: new.asset,
                owner: new.owner,
                code: new.code,
                flags: new.flags,
                debitsPosted: 0,
                creditsPosted: 0,
                debitsPending: 0,
                creditsPending: 0,
                metadata: new.metadata,
                createdAt: createdAt,
                rail: new.rail
            )
            existing[account.id] = account
            inserted.append(account)
            events.append(
                NewEvent(
                    type: "ledger.account.created",
                    source: "/ledger",
                    subject: account.id.description,
                    data: LedgerJSON.account(account),
                    time: createdAt
                )
            )
            results.append(.created(account))
        }
        try connection.insertMany(into: "ledger_accounts", columns: LedgerStore.accountColumns, rows: inserted.map(LedgerStore.values))
        try EventLog.append(events, on: connection)
        if !inserted.isEmpty {
            // nextTimestamp stored the first; the rest were handed out after it.
            try Counters.write(.ledgerTimestamp, Int64(bitPattern: inserted.last!.createdAt.nanoseconds), on: connection)
        }
        return results
    }

    public func asset(_ code: AssetCode) async throws -> Asset? {
        try await database.read { connection in
            try connection.queryFirst(Self.selectAssets + " WHERE code = \(code)").map(Self.asset)
        }
    }

    /// The scale of `code` (decimal places of its minor unit), `nil` for an unknown asset; read
    /// once per process, since it never changes.
    public func scale(of code: AssetCode) async throws -> UInt8? {
        if let known = knownScales.withLock({ $0[code] }) { return known }
        guard let scale = try await asset(code)?.scale else { return nil }
        knownScales.withLock { $0[code] = scale }
        return scale
    }

    public func assets() async throws -> [Asset] {
        try await database.read { connection in
            try connection.query(Self.selectAssets + " ORDER BY code").map(Self.asset)
        }
    }

    static let selectAssets: SQL = "SELECT code, scale, name, issuance_account_id, created_at, organiser_id, rail FROM ledger_assets"

    static func asset(_ row: SQLRow) throws -> Asset {
        let codeText = try row.text("code")
        guard let code = AssetCode(codeText) else { throw DatabaseError(.decode, "bad asset code '\(codeText)'") }
        return Asset(
            code: code,
            scale: UInt8(clamping: try row.int("scale")),
            name: try row.text("name"),
            issuanceAccountID: try row.decode("issuance_account_id"),
            organiserID: try row.optionalText("organiser_id"),
            createdAt: try row.decode("created_at"),
            rail: try row.optionalText("rail")
        )
    }

    static func validate(_ new: NewAccount) -> TransferError? {
        guard new.id.rawValue != 0 else { return TransferError(.idMustNotBeZero, "account id must not be zero", field: "id") }
        guard (1...64).contains(new.code.utf8.count) else {
            return TransferError(.invalidField, "code must be 1 to 64 bytes", field: "code")
        }
        guard (1...128).contains(new.owner.id.utf8.count) else {
            return TransferError(.invalidField, "owner id must be 1 to 128 bytes", field: "owner_id")
        }
        guard AccountFlags.known.isSuperset(of: new.flags) else {
            return TransferError(.invalidField, "unknown account flags \(new.flags.rawValue)", field: "flags")
        }
        guard !new.flags.isSuperset(of: [.debitsMustNotExceedCredits, .creditsMustNotExceedDebits]) else {
            return TransferError(.invalidField, "an account cannot have both balance flags (it could never move)", field: "flags")
        }
        return LedgerBatch.validateMetadata(new.metadata)
    }

    static func firstDifference(_ stored: Account, _ new: NewAccount) -> String? {
        if stored.asset != new.asset { return "asset" }
        if stored.owner != new.owner { return "owner" }
        if stored.code != new.code { return "code" }
        if stored.flags != new.flags { return "flags" }
        if stored.metadata != new.metadata { return "metadata" }
        if stored.rail != new.rail { return "rail" }
        return nil
    }

    /// The next ledger timestamp, from the counter row (locked on PostgreSQL).
    static func nextTimestamp(_ connection: any SQLConnection, _ clock: LedgerClock) throws -> LedgerTimestamp {
        let last = UInt64(bitPattern: try Counters.read(.ledgerTimestamp, on: connection))
        let next = max(clock.now().nanoseconds, last + 1)
        try Counters.write(.ledgerTimestamp, Int64(bitPattern: next), on: connection)
        return LedgerTimestamp(nanoseconds: next)
    }
}
