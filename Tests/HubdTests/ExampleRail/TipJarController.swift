import Foundation
import HubKernel
import Hummingbird
import Metrics

/// The tip jar's routes, added to the group the host mounts at `/v1/rails/tip-jar`.
///
/// They inherit the kernel's conventions because they run behind its middleware: the caller is
/// in `context.principal` (`requirePrincipal()`/`requireScope(_:)`), any thrown ``Problem`` (or
/// decoding or ledger error) leaves as `problem+json`, and an `Idempotency-Key` on a POST replays
/// the first response.
struct TipJarController: Sendable {
    let plugin: PluginContext
    let configuration: TipJarConfiguration
    let tips: Counter

    init(context: PluginContext, configuration: TipJarConfiguration, tips: Counter) {
        self.plugin = context
        self.configuration = configuration
        self.tips = tips
    }

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("jars", use: openJar)
        group.get("jars", use: listJars)
        group.get("jars/{id}", use: getJar)
        group.post("jars/{id}/tips", use: tip)
    }

    // MARK: Jars

    /// Organisers and admins open jars, collecting into an account they may collect into.
    @Sendable func openJar(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        guard principal.isAdmin || principal.has(.organiser) else {
            throw Problem.forbidden("Only organisers and admins open tip jars.")
        }
        var request = request
        let body = try await request.decodeJSON(as: OpenJarRequest.self, context: context)
        let title = body.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...configuration.maxTitleLength).contains(title.count) else {
            throw Problem.invalid("title", "A title is 1 to \(configuration.maxTitleLength) characters.")
        }
        if let seconds = body.closesInSeconds, !(1...31_536_000).contains(seconds) {
            throw Problem.invalid("closes_in_seconds", "A jar closes 1 second to 365 days after it opens.")
        }
        guard let code = AssetCode(body.asset), let asset = try await plugin.ledger.asset(code) else {
            throw Problem.invalid("asset", "No asset with this code.", code: "asset_not_found")
        }
        // Accounts the caller may not use answer like missing ones, so ids cannot be probed.
        guard let payeeID = AccountID(body.payeeAccountId), let payee = try await plugin.ledger.account(payeeID),
            Self.mayCollect(into: payee, of: asset, principal: principal)
        else {
            throw Problem.invalid("payee_account_id", "No such account, or you may not collect into it.", code: "payee_account_not_found")
        }
        guard payee.asset == asset.code else {
            throw Problem.invalid("payee_account_id", "The account holds \(payee.asset), not \(asset.code).", code: "asset_mismatch")
        }
        let now = plugin.clock.now()
        let jar = TipJar(
            id: UUID().uuidString.lowercased(),
            asset: asset.code,
            payeeAccountID: payee.id,
            title: title,
            openedBy: principal.userID.description,
            status: .open,
            total: 0,
            tipCount: 0,
            createdAt: now,
            closesAt: body.closesInSeconds.map { LedgerTimestamp(nanoseconds: now.nanoseconds + UInt64($0) * 1_000_000_000) },
            closedAt: nil
        )
        let source = plugin.eventSource
        // The row and its event commit together; then the bus is told so streams see it at once.
        try await plugin.database.write { try TipJarStore.open(jar, source: source, on: $0) }
        plugin.events.nudge()
        return try context.json(JarRepresentation(jar), status: .created, headers: [.location: "/v1/rails/tip-jar/jars/\(jar.id)"])
    }

    /// `?status=open|closed`, `?limit=&cursor=`, oldest first. Any authenticated caller.
    @Sendable func listJars(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requirePrincipal()
        let status = try request.query("status") { TipJar.Status(rawValue: $0) }
        let limit = try request.pageLimit()
        let after = try request.query("cursor") { Int64($0).flatMap { $0 >= 0 ? $0 : nil } } ?? 0
        let rows = try await plugin.database.read { try TipJarStore.jars(status: status, afterSeq: after, limit: limit + 1, on: $0) }
        let next = rows.count > limit ? String(rows[limit - 1].seq) : nil
        return try context.json(Page(data: rows.prefix(limit).map { JarRepresentation($0.jar) }, nextCursor: next))
    }

    @Sendable func getJar(_ request: Request, context: HubRequestContext) async throws -> Response {
        _ = try context.requirePrincipal()
        return try context.json(JarRepresentation(try await jar(context)))
    }

    // MARK: Tips

    /// A member tips from their own wallet.
    ///
    /// Money first, then the count. The ledger transfer is submitted with the client's id and the
    /// jar's `ref`; the ledger makes that idempotent (a retry answers `exists`). Only then, in one
    /// write transaction, the jar's total grows and `tipjar.jar.tipped` is appended, and only if
    /// `tip_jar_tips` has no row for this transfer id yet. So the total always equals the tips
    /// the ledger holds: a retry counts nothing twice, and a crash between the two steps is
    /// completed by retrying with the same id. (A rail whose own state must change in the same
    /// transaction as the money uses `Ledger.transaction` instead; docs/PLUGINS.md §6 shows both.)
    @Sendable func tip(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: TipRequest.self, context: context)
        guard body.amount.value > 0 else {
            throw Problem.invalid("amount", "A tip is at least 1 minor unit.", code: "amount_must_not_be_zero")
        }
        let transferID =
            try body.id.map { text in
                guard let id = TransferID(text), id.rawValue != 0 else { throw Problem.invalid("id", "Expected a non-zero UUID.") }
                return id
            } ?? .timeOrdered()
        let jar = try await jar(context)
        // Ownership through the ledger account's owner: only your own wallet pays your tips.
        guard let fromID = AccountID(body.fromAccountId), let from = try await plugin.ledger.account(fromID),
            from.owner == .user(principal.userID.description)
        else {
            throw Problem.invalid("from_account_id", "No such account, or it is not yours.", code: "debit_account_not_found")
        }
        guard from.asset == jar.asset else {
            throw Problem.invalid("from_account_id", "The account holds \(from.asset); this jar collects \(jar.asset).", code: "asset_mismatch")
        }
        // A closed jar takes no new tips. A retry whose transfer already reached the ledger goes
        // on, so that a tip interrupted before it was counted is still completed.
        if jar.status == .closed, try await plugin.ledger.transfer(transferID)?.reference != jar.reference {
            throw Problem(.conflict, code: "jar_closed", detail: "This tip jar is closed.")
        }
        let result = try await plugin.ledger.submit(
            TransferRequest(
                id: transferID,
                action: .post(debit: from.id, credit: jar.payeeAccountID, amount: body.amount.value, asset: jar.asset),
                reference: jar.reference
            )
        )
        let transfer: Transfer
        switch result {
        case .created(let recorded), .exists(let recorded):
            transfer = recorded
        case .failed(let error):
            // Refused (insufficient funds, the id reused for another transfer…): nothing moved,
            // so nothing is counted. The kernel's problem middleware makes it a 422 with the code.
            throw error
        }
        let (source, now, jarID) = (plugin.eventSource, plugin.clock.now(), jar.id)
        let outcome = try await plugin.database.write { connection in
            try TipJarStore.record(transfer, jarID: jarID, at: now, source: source, on: connection)
        }
        switch outcome {
        case .recorded(let tip, let jar):
            plugin.events.nudge()
            tips.increment()
            return try context.json(TipReceipt(tip: TipRepresentation(tip, asset: jar.asset), jar: JarRepresentation(jar)), status: .created)
        case .alreadyRecorded(let tip, let jar):
            return try context.json(TipReceipt(tip: TipRepresentation(tip, asset: jar.asset), jar: JarRepresentation(jar)))
        }
    }

    // MARK: Helpers

    /// The jar named by the `{id}` path parameter, or 404.
    private func jar(_ context: HubRequestContext) async throws -> TipJar {
        guard let text = context.parameters.get("id"), let uuid = UUID(uuidString: text) else {
            throw Problem.notFound("tip jar")
        }
        let id = uuid.uuidString.lowercased()
        guard let jar = try await plugin.database.read({ try TipJarStore.jar(id, on: $0) }) else {
            throw Problem.notFound("tip jar")
        }
        return jar
    }

    /// Admins collect into any account; others into their own, or any of an asset they organise.
    static func mayCollect(into account: Account, of asset: Asset, principal: Principal) -> Bool {
        principal.isAdmin || account.owner == .user(principal.userID.description)
            || (principal.has(.organiser) && asset.organiserID == principal.userID.description)
    }
}
