import Foundation
import HubKernel
import Hummingbird
import Metrics

/// The tip jar's routes, added to the group the host mounts at `/v1/rails/tip-jar`.
///
/// They inherit the kernel's conventions because they run behind its middleware: the caller is
/// in `context.principal` (`requirePrincipal()`/`requireScope(_:)`), any thrown ``TipJarError``
/// (or decoding or ledger error) leaves as `problem+json`, and an `Idempotency-Key` on a POST
/// replays the first response (recorded by `plugin.respond` in the same unit as the change).
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
            throw TipJarError(.forbidden, "Only organisers and admins open tip jars.")
        }
        var request = request
        let body = try await request.decodeJSON(as: OpenJarRequest.self, context: context)
        let title = body.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...configuration.maxTitleLength).contains(title.count) else {
            throw TipJarError(.invalidField, "A title is 1 to \(configuration.maxTitleLength) characters.", field: "title")
        }
        if let seconds = body.closesInSeconds, !(1...31_536_000).contains(seconds) {
            throw TipJarError(.invalidField, "A jar closes 1 second to 365 days after it opens.", field: "closes_in_seconds")
        }
        guard let code = AssetCode(body.asset), let asset = try await plugin.ledger.asset(code) else {
            throw TipJarError(.assetNotFound, "No asset with this code.", field: "asset")
        }
        // Accounts the caller may not use answer like missing ones, so ids cannot be probed.
        guard let payeeID = AccountID(body.payeeAccountId), let payee = try await plugin.ledger.account(payeeID),
            Self.mayCollect(into: payee, of: asset, principal: principal)
        else {
            throw TipJarError(.payeeAccountNotFound, "No such account, or you may not collect into it.", field: "payee_account_id")
        }
        guard payee.asset == asset.code else {
            throw TipJarError(.assetMismatch, "The account holds \(payee.asset), not \(asset.code).", field: "payee_account_id")
        }
        let (openedBy, closesIn) = (principal.userID.description, body.closesInSeconds)
        // The row, its event and the request's Idempotency-Key (if any) commit together.
        return try await plugin.respond { unit in
            let jar = TipJar(
                id: UUID().uuidString.lowercased(),
                asset: asset.code,
                payeeAccountID: payee.id,
                title: title,
                openedBy: openedBy,
                status: .open,
                total: 0,
                tipCount: 0,
                createdAt: unit.now,
                closesAt: closesIn.map { LedgerTimestamp(nanoseconds: unit.now.nanoseconds + UInt64($0) * 1_000_000_000) },
                closedAt: nil
            )
            try TipJarStore.open(jar, on: unit)
            return try .json(JarRepresentation(jar), status: .created, location: "/v1/rails/tip-jar/jars/\(jar.id)")
        }
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
    /// One unit of work: the ledger transfer (the client's id, the jar's `ref`), the jar's new
    /// total, the tip's row and `tipjar.jar.tipped`, and the request's `Idempotency-Key`, commit
    /// together or not at all. So the total always equals the tips the ledger holds, and a retry
    /// with the same transfer id finds the tip and counts nothing twice (200 instead of 201).
    @Sendable func tip(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: TipRequest.self, context: context)
        guard body.amount.value > 0 else {
            throw TipJarError(.amountMustNotBeZero, "A tip is at least 1 minor unit.", field: "amount")
        }
        let transferID =
            try body.id.map { text in
                guard let id = TransferID(text), id.rawValue != 0 else { throw TipJarError(.invalidField, "Expected a non-zero UUID.", field: "id") }
                return id
            } ?? .timeOrdered()
        let jar = try await jar(context)
        // Ownership through the ledger account's owner: only your own wallet pays your tips.
        guard let fromID = AccountID(body.fromAccountId), let from = try await plugin.ledger.account(fromID),
            from.owner == .user(principal.userID.description)
        else {
            throw TipJarError(.debitAccountNotFound, "No such account, or it is not yours.", field: "from_account_id")
        }
        guard from.asset == jar.asset else {
            throw TipJarError(.assetMismatch, "The account holds \(from.asset); this jar collects \(jar.asset).", field: "from_account_id")
        }
        let transfer = TransferRequest(
            id: transferID,
            action: .post(debit: from.id, credit: jar.payeeAccountID, amount: body.amount.value, asset: jar.asset),
            reference: jar.reference
        )
        let response = try await plugin.respond { [jarID = jar.id] unit in
            switch try TipJarStore.tip(transfer, jarID: jarID, on: unit) {
            case .recorded(let tip, let jar): try Self.receipt(tip, jar, status: .created)
            case .alreadyRecorded(let tip, let jar): try Self.receipt(tip, jar, status: .ok)
            }
        }
        // 201 only from the unit that counted the tip (a replay never reaches this handler).
        if response.status == .created { tips.increment() }
        return response
    }

    static func receipt(_ tip: TipRecord, _ jar: TipJar, status: HTTPResponse.Status) throws -> HTTPReply {
        try .json(TipReceipt(tip: TipRepresentation(tip, asset: jar.asset), jar: JarRepresentation(jar)), status: status)
    }

    // MARK: Helpers

    /// The jar named by the `{id}` path parameter, or 404.
    private func jar(_ context: HubRequestContext) async throws -> TipJar {
        guard let text = context.parameters.get("id"), let uuid = UUID(uuidString: text) else {
            throw TipJarError.jarNotFound
        }
        let id = uuid.uuidString.lowercased()
        guard let jar = try await plugin.database.read({ try TipJarStore.jar(id, on: $0) }) else {
            throw TipJarError.jarNotFound
        }
        return jar
    }

    /// Admins collect into any account; others into their own, or any of an asset they organise.
    static func mayCollect(into account: Account, of asset: Asset, principal: Principal) -> Bool {
        principal.isAdmin || account.owner == .user(principal.userID.description)
            || (principal.has(.organiser) && asset.organiserID == principal.userID.description)
    }
}
