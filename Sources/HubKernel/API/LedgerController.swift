import HTTPTypes
public import Hummingbird

/// `/v1/assets`, `/v1/ledger/accounts`, `/v1/ledger/transfers` and the wallet endpoints.
public struct LedgerController: Sendable {
    let ledger: Ledger
    /// Whether a user id names an existing user (the identity service answers).
    let userExists: @Sendable (String) async throws -> Bool
    /// The ids of the rails built into this hub. A kernel client may not name one in `ref.rail`
    /// (that is how the ledger knows a rail's own transfers), nor resolve a rail's holds.
    let railIDs: Set<String>

    public init(ledger: Ledger, railIDs: Set<String> = [], userExists: @escaping @Sendable (String) async throws -> Bool) {
        self.ledger = ledger
        self.railIDs = railIDs
        self.userExists = userExists
    }

    public func addRoutes(to v1: RouterGroup<HubRequestContext>) {
        v1.get("assets", use: listAssets)
        v1.post("assets", use: createAsset)
        v1.get("assets/{code}", use: getAsset)

        v1.post("ledger/accounts", use: createAccount)
        v1.get("ledger/accounts", use: listAccounts)
        v1.get("ledger/accounts/{id}", use: getAccount)

        v1.post("ledger/transfers", use: createTransfer)
        v1.post("ledger/transfers/batch", use: createBatch)
        v1.get("ledger/transfers", use: listTransfers)
        v1.get("ledger/transfers/{id}", use: getTransfer)
        v1.post("ledger/transfers/{id}/post", use: postPending)
        v1.post("ledger/transfers/{id}/void", use: voidPending)

        v1.get("wallets/me", use: myWallets)
        v1.put("users/{id}/wallets/{asset}", use: ensureWallet)
    }

    // MARK: Assets

    @Sendable func listAssets(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        let assets = try await ledger.assets()
        return try context.json(Page(data: assets.map(AssetRepresentation.init), nextCursor: nil))
    }

    @Sendable func getAsset(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requireScope(.ledgerRead)
        let code = try LedgerRequestParsing.assetCode(context.parameters.get("code"), field: "code")
        guard let asset = try await ledger.asset(code) else { throw Problem.notFound("asset") }
        return try context.json(AssetRepresentation(asset))
    }

    @Sendable func createAsset(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let me = principal.userID.description
        var request = request
        let body = try await request.decodeJSON(as: CreateAssetRequest.self, context: context)
        let policy = LedgerAccessPolicy(principal: principal)
        guard policy.canCreateAssets else { throw Problem.forbidden("Only admins and organisers create assets.") }
        let organiser: String?
        if principal.isAdmin {
            organiser = body.organiserId
            if let organiser, try await !userExists(organiser) {
                throw Problem.invalid("organiser_id", "No user with this id.")
            }
        } else {
            guard body.organiserId == nil || body.organiserId == me else {
                throw Problem.forbidden("Organisers create assets they organise themselves.")
            }
            organiser = me
        }
        let code = try LedgerRequestParsing.assetCode(body.code, field: "code")
        let result = try await ledger.createAsset(NewAsset(code: code, scale: body.scale, name: body.name, organiserID: organiser))
        return try created(result, location: "/v1/assets/\(code)", AssetRepresentation.init, context: context)
    }

    // MARK: Accounts

    @Sendable func createAccount(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: CreateAccountRequest.self, context: context)
        let asset = try LedgerRequestParsing.assetCode(body.asset, field: "asset")
        let owner =
            try body.owner.map { owner -> AccountOwner in
                guard let kind = AccountOwner.Kind(rawValue: owner.kind) else {
                    throw Problem.invalid("owner.kind", "One of `user`, `organisation`, `system`.")
                }
                return AccountOwner(kind: kind, id: owner.id)
            } ?? .user(principal.userID.description)
        let new = NewAccount(
            id: try body.id.map { try LedgerRequestParsing.accountID($0, field: "id") } ?? .timeOrdered(),
            asset: asset,
            owner: owner,
            code: body.code ?? "wallet",
            flags: try body.flags.map(AccountFlagName.flags) ?? [.debitsMustNotExceedCredits],
            metadata: body.metadata ?? [:]
        )
        guard let assetRecord = try await ledger.asset(asset) else {
            throw Problem.invalid("asset", "No asset with this code.", code: TransferError.Code.assetNotFound.rawValue)
        }
        guard LedgerAccessPolicy(principal: principal).canCreate(new, asset: assetRecord) else {
            throw Problem.forbidden(
                "Accounts that may go negative are created by admins alone; you may create wallets (which cannot go negative) for yourself, and as an organiser for others on an asset you organise."
            )
        }
        if new.owner.kind == .user, new.owner.id != principal.userID.description, try await !userExists(new.owner.id) {
            throw Problem.invalid("owner.id", "No user with this id.")
        }
        var result = try await ledger.createAccounts([new])[0]
        // The ledger names the owner's id `owner_id`; this request spells it `owner.id`.
        if case .failed(var error) = result, error.field == "owner_id" {
            error.field = "owner.id"
            result = .failed(error)
        }
        return try created(result, location: "/v1/ledger/accounts/\(new.id)", AccountRepresentation.init, context: context)
    }

    @Sendable func getAccount(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let id = try LedgerRequestParsing.accountID(context.parameters.get("id"), field: "id")
        let account = try await visibleAccount(id, principal: principal)
        return try context.json(AccountRepresentation(account))
    }

    /// `?owner_kind=&owner_id=` (default: the caller), `?asset=`, `?limit=&cursor=`.
    @Sendable func listAccounts(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let kind = try request.query("owner_kind") { AccountOwner.Kind(rawValue: $0) } ?? .user
        let ownerID = try request.query("owner_id") { $0.isEmpty ? nil : $0 } ?? principal.userID.description
        let limit = try request.pageLimit()
        let after = try request.query("cursor") { UInt64($0).map(LedgerTimestamp.init(nanoseconds:)) }
        let asset = try request.query("asset") { AssetCode($0) }
        let search = try request.query("q") { (1...100).contains($0.count) ? $0 : nil }
        let hubWide = try request.query("all") { ["true": true, "false": false][$0] } ?? false
        // Hub-wide (`?all=true`, or a search `?q=`): admins see every account, organisers those of
        // the assets they organise; a member's view stays their own accounts.
        let coverage: Ledger.Coverage? =
            !(hubWide || search != nil)
            ? nil
            : principal.isAdmin ? .everything : principal.has(.organiser) ? .organisedBy(principal.userID.description) : nil
        let accounts =
            if let coverage {
                try await ledger.accounts(covering: coverage, asset: asset, search: search, after: after, limit: limit + 1)
            } else {
                try await ledger.accounts(ownedBy: AccountOwner(kind: kind, id: ownerID), asset: asset, after: after, limit: limit + 1)
            }
        var visible: [Account] = []
        for account in accounts.prefix(limit) where try await canView(account, principal: principal) {
            visible.append(account)
        }
        let next = accounts.count > limit ? String(accounts[limit - 1].createdAt.nanoseconds) : nil
        return try context.json(Page(data: visible.map(AccountRepresentation.init), nextCursor: next))
    }

    // MARK: Transfers

    @Sendable func createTransfer(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let item = try await request.decodeJSON(as: TransferItemRequest.self, context: context)
        let transfer = try transferRequest(item, index: nil)
        try await authorise([transfer], principal: principal, fieldPrefix: { _ in "" })
        let scales = try await scales(of: [transfer])
        return try await ledger.respond(submitting: [transfer]) { results in try Self.reply(to: Self.inAssetUnits(results, scales: scales)[0]) }
    }

    @Sendable func createBatch(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: TransferBatchRequest.self, context: context)
        guard (1...ledger.configuration.maxBatchTransfers).contains(body.transfers.count) else {
            throw Problem.invalid("transfers", "A batch holds 1 to \(ledger.configuration.maxBatchTransfers) transfers.", code: "batch_too_large")
        }
        let transfers = try body.transfers.enumerated().map { try transferRequest($1, index: $0) }
        try await authorise(transfers, principal: principal, fieldPrefix: { "transfers[\($0)]." })
        let scales = try await scales(of: transfers)
        return try await ledger.respond(submitting: transfers) { results in
            try .json(BatchResultRepresentation(Self.inAssetUnits(results, scales: scales)))
        }
    }

    @Sendable func getTransfer(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let id = try LedgerRequestParsing.transferID(context.parameters.get("id"), field: "id")
        guard let transfer = try await ledger.transfer(id) else { throw Problem.notFound("transfer") }
        let sides = try await ledger.accounts([transfer.debitAccountID, transfer.creditAccountID])
        var visible = false
        for account in sides where try await canView(account, principal: principal) { visible = true }
        guard visible else { throw Problem.notFound("transfer") }
        let state = transfer.kind == .pending ? try await ledger.pendingStatus(id)?.state : nil
        return try context.json(TransferRepresentation(transfer, pendingState: state))
    }

    /// `?account_id=`: one account's transfers, oldest first. Without it, the hub-wide list, newest
    /// first (admins: every transfer; organisers: those of assets they organise; members must name
    /// an account), with `?asset=`, `?rail=`, `?since=&until=` (RFC 3339). `?limit=&cursor=`.
    @Sendable func listTransfers(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        guard let accountText = request.uri.queryParameters["account_id"] else {
            guard principal.isAdmin || principal.has(.organiser) else {
                throw Problem.invalid("account_id", "List the transfers of one of your accounts: `?account_id=`.", code: "missing_field")
            }
            let coverage: Ledger.Coverage = principal.isAdmin ? .everything : .organisedBy(principal.userID.description)
            let limit = try request.pageLimit()
            let page = try await ledger.transfers(
                covering: coverage,
                asset: try request.query("asset") { AssetCode($0) },
                rail: try request.query("rail") { (1...128).contains($0.utf8.count) ? $0 : nil },
                since: try request.query("since") { RFC3339.parse($0) },
                until: try request.query("until") { RFC3339.parse($0) },
                before: try request.query("cursor") { UInt64($0).map(LedgerTimestamp.init(nanoseconds:)) },
                limit: limit + 1
            )
            let next = page.count > limit ? String(page[limit - 1].timestamp.nanoseconds) : nil
            return try context.json(Page(data: page.prefix(limit).map { TransferRepresentation($0) }, nextCursor: next))
        }
        let accountID = try LedgerRequestParsing.accountID(String(accountText), field: "account_id")
        _ = try await visibleAccount(accountID, principal: principal)
        let limit = try request.pageLimit()
        let after = try request.query("cursor") { UInt64($0).map(LedgerTimestamp.init(nanoseconds:)) }
        let transfers = try await ledger.transfers(account: accountID, after: after, limit: limit + 1)
        let next = transfers.count > limit ? String(transfers[limit - 1].timestamp.nanoseconds) : nil
        return try context.json(Page(data: transfers.prefix(limit).map { TransferRepresentation($0) }, nextCursor: next))
    }

    @Sendable func postPending(_ request: Request, context: HubRequestContext) async throws -> Response {
        try await resolvePending(request, context: context, post: true)
    }

    @Sendable func voidPending(_ request: Request, context: HubRequestContext) async throws -> Response {
        try await resolvePending(request, context: context, post: false)
    }

    private func resolvePending(_ request: Request, context: HubRequestContext, post: Bool) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let pendingID = try LedgerRequestParsing.transferID(context.parameters.get("id"), field: "id")
        var request = request
        // The body is optional: `{}` or none resolves the whole hold with a derived id.
        let body: ResolvePendingRequest
        if request.headers[.contentType] == nil && request.headers[.contentLength].map({ $0 == "0" }) ?? true {
            body = ResolvePendingRequest()
        } else {
            body = try await request.decodeJSON(as: ResolvePendingRequest.self, context: context)
        }
        guard let pending = try await ledger.transfer(pendingID), pending.kind == .pending else {
            throw Problem.notFound("pending transfer")
        }
        let sides = try await ledger.accounts([pending.debitAccountID, pending.creditAccountID])
        guard let debit = sides.first(where: { $0.id == pending.debitAccountID }),
            let credit = sides.first(where: { $0.id == pending.creditAccountID })
        else { throw Problem.notFound("pending transfer") }
        let policy = LedgerAccessPolicy(principal: principal)
        guard policy.canResolve(debit: debit, credit: credit, debitAsset: try await ledger.asset(debit.asset)) else {
            throw Problem.notFound("pending transfer")
        }
        if let refusal = railHoldRefusal(pending, field: "id") { throw refusal }
        // A hold resolves once, so an id derived from it makes a retry without an id answer `exists`.
        let id = try body.id.map { try LedgerRequestParsing.transferID($0, field: "id") } ?? DerivedID.transfer(resolving: pendingID, post: post)
        let action: TransferAction = post ? .postPending(pendingID: pendingID, amount: body.amount?.value) : .voidPending(pendingID: pendingID)
        let scales = [pending.asset: try await scale(of: pending.asset)]
        return try await ledger.respond(submitting: [TransferRequest(id: id, action: action)]) { results in
            try Self.reply(to: Self.inAssetUnits(results, scales: scales)[0])
        }
    }

    /// 201 with a `Location` for a new transfer, 200 for one that already existed, the ledger's
    /// error (a 422 problem) otherwise.
    private static func reply(to result: TransferResult) throws -> HTTPReply {
        switch result {
        case .created(let recorded):
            return try .json(TransferRepresentation(recorded), status: .created, location: "/v1/ledger/transfers/\(recorded.id)")
        case .exists(let recorded):
            return try .json(TransferRepresentation(recorded))
        case .failed(let error):
            throw error
        }
    }

    // MARK: Wallets

    /// The caller's wallet accounts with balances and their ten newest entries.
    @Sendable func myWallets(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let accounts = try await ledger.accounts(ownedBy: .user(principal.userID.description), after: nil, limit: 500)
        var wallets: [WalletRepresentation] = []
        for account in accounts {
            let recent = try await ledger.recentTransfers(account: account.id, limit: 10)
            wallets.append(WalletRepresentation(account: AccountRepresentation(account), recent: recent.map { TransferRepresentation($0) }))
        }
        return try context.json(WalletsRepresentation(userId: principal.userID.description, wallets: wallets))
    }

    /// Creates (or returns) the user's wallet for an asset. The account id is derived from user and
    /// asset, so repeating the call is safe and two racing calls create one account.
    @Sendable func ensureWallet(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let userID = try context.parameters.require("id")
        let me = principal.userID.description
        let code = try LedgerRequestParsing.assetCode(context.parameters.get("asset"), field: "asset")
        guard me == userID || principal.isAdmin || principal.has(.organiser) else {
            throw Problem.notFound("user")
        }
        if userID != me, try await !userExists(userID) { throw Problem.notFound("user") }
        guard let asset = try await ledger.asset(code) else { throw Problem.notFound("asset") }
        if userID != me && !principal.isAdmin && !LedgerAccessPolicy(principal: principal).organises(asset) {
            throw Problem.forbidden("Organisers create wallets only for assets they organise.")
        }
        let new = NewAccount(id: DerivedID.wallet(user: userID, asset: code), asset: code, owner: .user(userID))
        let result = try await ledger.createAccounts([new])[0]
        return try created(result, location: "/v1/ledger/accounts/\(new.id)", AccountRepresentation.init, context: context)
    }

    // MARK: Helpers

    private func transferRequest(_ item: TransferItemRequest, index: Int?) throws -> TransferRequest {
        if let rail = item.ref?.rail, railIDs.contains(rail) {
            throw TransferError(
                .ownedByRail,
                "ref.rail '\(rail)' names a rail of this hub: only that rail records transfers in its name",
                field: index.map { "transfers[\($0)].ref.rail" } ?? "ref.rail"
            )
        }
        let id = try item.id.map { try LedgerRequestParsing.transferID($0, field: index.map { "transfers[\($0)].id" } ?? "id") } ?? .timeOrdered()
        return TransferRequest(
            id: id,
            action: try LedgerRequestParsing.action(item, index: index),
            linked: item.linked ?? false,
            reference: LedgerRequestParsing.reference(item.ref),
            metadata: item.metadata ?? [:]
        )
    }

    /// Checks that the caller may move money out of every debit account (and resolve every hold)
    /// in `transfers` before anything is submitted, so a refused batch changes nothing. Accounts the
    /// caller may not see are reported as not found, like accounts that do not exist. Everything
    /// the check needs is read once for the whole batch (``Ledger/records(transfers:accounts:)``).
    private func authorise(_ transfers: [TransferRequest], principal: Principal, fieldPrefix: (Int) -> String) async throws {
        var holdIDs: [TransferID] = []
        var debitIDs: [AccountID] = []
        for transfer in transfers {
            switch transfer.action {
            case .post(let debit, _, _, _), .hold(let debit, _, _, _, _): debitIDs.append(debit)
            case .postPending(let pendingID, _), .voidPending(let pendingID): holdIDs.append(pendingID)
            }
        }
        // Admins need no accounts: only the holds, for the rail-ownership rule below.
        let records = try await ledger.records(transfers: holdIDs, accounts: principal.isAdmin ? [] : debitIDs)
        // A rail's holds are resolved by the rail, whoever asks (admins included): its state
        // machine (a BLE lock, a chain's cash-out) would otherwise disagree with the ledger.
        for (index, transfer) in transfers.enumerated() {
            switch transfer.action {
            case .postPending(let pendingID, _), .voidPending(let pendingID):
                if let pending = records.transfers[pendingID], let refusal = railHoldRefusal(pending, field: fieldPrefix(index) + "pending_id") {
                    throw refusal
                }
            case .post, .hold: continue
            }
        }
        if principal.isAdmin { return }
        let policy = LedgerAccessPolicy(principal: principal)
        let batchIDs = Set(transfers.map(\.id))
        for (index, transfer) in transfers.enumerated() {
            switch transfer.action {
            case .post(let debit, _, _, _), .hold(let debit, _, _, _, _):
                guard let account = records.accounts[debit], policy.canDebit(account, asset: records.assets[account.asset]) else {
                    throw Problem.invalid(
                        fieldPrefix(index) + "debit_account_id",
                        "No such account, or you may not debit it.",
                        code: "debit_account_not_found"
                    )
                }
            case .postPending(let pendingID, _), .voidPending(let pendingID):
                // A hold created earlier in this same batch is checked through its own debit account.
                if batchIDs.contains(pendingID) { continue }
                guard let pending = records.transfers[pendingID] else { continue }  // the ledger reports not found
                guard let debit = records.accounts[pending.debitAccountID],
                    let credit = records.accounts[pending.creditAccountID],
                    policy.canResolve(debit: debit, credit: credit, debitAsset: records.assets[debit.asset])
                else {
                    throw Problem.invalid(
                        fieldPrefix(index) + "pending_id",
                        "No such hold, or you may not resolve it.",
                        code: "pending_transfer_not_found"
                    )
                }
            }
        }
    }

    /// The scales of the assets `transfers` name, known before they are submitted so that a
    /// refusal's shortfall can be said in the asset's units inside the reply. An asset's scale never
    /// changes, so each is read once per process.
    private func scales(of transfers: [TransferRequest]) async throws -> [AssetCode: UInt8] {
        var scales: [AssetCode: UInt8] = [:]
        for transfer in transfers {
            switch transfer.action {
            case .post(_, _, _, let asset), .hold(_, _, _, let asset, _):
                if scales[asset] == nil { scales[asset] = try await scale(of: asset) }
            case .postPending, .voidPending:
                continue
            }
        }
        return scales
    }

    private func scale(of asset: AssetCode) async throws -> UInt8 {
        try await ledger.scale(of: asset) ?? 0
    }

    /// Failures that carry a shortfall say it in the asset's units too (`45.00 EUR available`),
    /// which only the API can: the ledger counts minor units and knows no scales on its hot path.
    private static func inAssetUnits(_ results: [TransferResult], scales: [AssetCode: UInt8]) -> [TransferResult] {
        results.map { result in
            guard case .failed(var error) = result, let shortfall = error.shortfall else { return result }
            error.message = AssetUnits.describe(shortfall, scale: scales[shortfall.asset] ?? 0)
            return .failed(error)
        }
    }

    /// `owned_by_rail` for a hold that a rail made (its `ref.rail` names one of this hub's rails).
    private func railHoldRefusal(_ hold: Transfer, field: String) -> TransferError? {
        guard let rail = hold.reference?.rail, railIDs.contains(rail) else { return nil }
        return TransferError(.ownedByRail, "hold \(hold.id) belongs to the rail '\(rail)': only that rail posts or voids it", field: field)
    }

    private func canView(_ account: Account, principal: Principal) async throws -> Bool {
        let policy = LedgerAccessPolicy(principal: principal)
        if principal.isAdmin || policy.owns(account) { return true }
        return policy.canView(account, asset: try await ledger.asset(account.asset))
    }

    private func visibleAccount(_ id: AccountID, principal: Principal) async throws -> Account {
        guard let account = try await ledger.account(id), try await canView(account, principal: principal) else {
            throw Problem.notFound("account")
        }
        return account
    }

    private func created<Value, Representation: Encodable>(
        _ result: CreateResult<Value>,
        location: String,
        _ represent: (Value) -> Representation,
        context: HubRequestContext
    ) throws -> Response {
        switch result {
        case .created(let value): return try context.json(represent(value), status: .created, headers: [.location: location])
        case .exists(let value): return try context.json(represent(value))
        case .failed(let error): throw error
        }
    }
}
