import Foundation
import HTTPTypes
import HubKernel
import Hummingbird

/// The Gotchu server's routes under `/v1/rails/ble-sessions/gotchu`, so the existing app works
/// against the hub by changing its base URL (`specs/rails.md` §5). Same paths, bodies, integer
/// cents and `{"error": "…"}` answers; underneath, the rail's sessions, with what Gotchu lacks:
/// the lock records its payer and holds the money, expiry is enforced by a sweeper, and a repeated
/// `Idempotency-Key` replays the first answer (the kernel's middleware) instead of a 409.
///
/// Kernel middleware still speaks its own dialect before a handler runs: a malformed or unknown
/// bearer token, a rate limit or an idempotency conflict answers with `problem+json` (same status
/// codes the app already handles).
struct GotchuController: Sendable {
    let service: SessionService
    let identity: Identity
    let developmentLogin: Bool
    let resolveLimit: RateLimitMiddleware

    private var asset: AssetCode { service.configuration.defaultAsset! }

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.get("health") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "OK")))
        }
        if developmentLogin { group.post("auth/dev-login", use: devLogin) }
        group.get("wallet/me", use: walletMe)
        group.post("wallet/send", use: send)
        group.post("sessions/create", use: create)
        group.post("sessions/lock", use: lock)
        group.group("sessions/resolve").add(middleware: resolveLimit).post(use: resolve)
    }

    // MARK: Routes

    @Sendable func devLogin(_ request: Request, context: HubRequestContext) async throws -> Response {
        guard let body = try await decode(GotchuShapes.DevLoginRequest.self, request, context) else {
            return failure(.badRequest, "invalid json", context)
        }
        guard let email = body.email, !email.isEmpty else { return failure(.badRequest, "email required", context) }
        guard let user = try await identity.users.user(email: email) else { return failure(.notFound, "not found", context) }
        let tokens = try await identity.tokens.issue(for: user)
        return try context.json(GotchuShapes.DevLoginResponse(token: tokens.accessToken, userId: user.id.description))
    }

    @Sendable func walletMe(_ request: Request, context: HubRequestContext) async throws -> Response {
        guard let principal = context.principal else { return failure(.unauthorized, "unauthorized", context) }
        // Gotchu made a wallet with the user; here it is made on first use, so a new user sees
        // an empty wallet rather than a 404.
        let wallet = try await service.ledger.wallet(of: principal.userID, asset: asset)
        let walletID = wallet.id
        guard let available = Int64(exactly: wallet.available) else {
            return failure(.internalServerError, "balance beyond the compatible range", context)
        }
        let transfers = try await service.ledger.recentTransfers(account: walletID, limit: 40)
        let recent = transfers.compactMap { transfer -> GotchuShapes.Wallet.Entry? in
            // Holds and their release move nothing; Gotchu's history lists movements only.
            guard transfer.kind == .posted || transfer.kind == .postPending else { return nil }
            let debit = transfer.debitAccountID == walletID
            let session = Self.sessionPaid(by: transfer)
            return GotchuShapes.Wallet.Entry(
                type: session != nil ? (debit ? "SEND_P2P" : "RECEIVE_P2P") : (debit ? "DEBIT_PAYOUT" : "CREDIT_TOPUP"),
                direction: debit ? "DEBIT" : "CREDIT",
                amountCents: String(transfer.amount),
                refType: session != nil ? "PAYMENT_SESSION" : "MANUAL",
                refId: session ?? transfer.id.description,
                createdAt: transfer.timestamp.description
            )
        }
        return try context.json(GotchuShapes.Wallet(walletId: walletID.description, availableCents: available, recent: Array(recent.prefix(20))))
    }

    @Sendable func create(_ request: Request, context: HubRequestContext) async throws -> Response {
        guard let principal = context.principal else { return failure(.unauthorized, "unauthorized", context) }
        guard let body = try await decode(GotchuShapes.CreateRequest.self, request, context) else {
            return failure(.badRequest, "invalid json", context)
        }
        guard let cents = body.amountCents?.value, cents > 0 else { return failure(.badRequest, "invalid amount", context) }
        var new = SessionService.NewSession(payee: principal.userID, payeeDisplayName: principal.displayName, amount: UInt128(cents), asset: asset)
        switch body.splitMode ?? "single" {
        case "single": new.payers = body.maxPayers ?? 1
        case "equal":
            new.splitMode = .equal
            new.payers = body.maxPayers ?? 2
        default: return failure(.badRequest, "invalid split_mode", context)
        }
        return try await answer(context) {
            let session = try await service.create(new)
            return GotchuShapes.CreateResponse(sid: session.id, eid: session.eid.description, expAt: session.expiresAt.description)
        }
    }

    @Sendable func resolve(_ request: Request, context: HubRequestContext) async throws -> Response {
        guard let body = try await decode(GotchuShapes.ResolveRequest.self, request, context) else {
            return failure(.badRequest, "invalid json", context)
        }
        guard let text = body.eid, !text.isEmpty else { return failure(.badRequest, "eid required", context) }
        guard let eid = EphemeralID(hex: text) else { return failure(.notFound, "not found", context) }
        return try await answer(context) {
            let (session, share) = try await service.resolve(eid)
            guard let cents = Int64(exactly: session.shareAmount(share)) else {
                throw SessionRefusal.invalid("amount", "amount beyond the compatible range")
            }
            return GotchuShapes.ResolveResponse(sid: session.id, amountCents: cents, payeeDisplay: .init(name: session.payeeDisplayName))
        }
    }

    @Sendable func lock(_ request: Request, context: HubRequestContext) async throws -> Response {
        guard let principal = context.principal else { return failure(.unauthorized, "unauthorized", context) }
        guard let body = try await decode(GotchuShapes.SessionRequest.self, request, context) else {
            return failure(.badRequest, "invalid json", context)
        }
        guard let sid = body.sid, !sid.isEmpty else { return failure(.badRequest, "sid required", context) }
        return try await answer(context) {
            _ = try await service.lock(sid, payer: principal.userID)
            return GotchuShapes.OK()
        }
    }

    /// Pays the session. Gotchu lets a payer skip `lock`, so a caller without a lock locks and
    /// pays here in one call (two transactions: a failure between them leaves a lock that
    /// expires on its own).
    @Sendable func send(_ request: Request, context: HubRequestContext) async throws -> Response {
        guard let principal = context.principal else { return failure(.unauthorized, "unauthorized", context) }
        guard let body = try await decode(GotchuShapes.SessionRequest.self, request, context) else {
            return failure(.badRequest, "invalid json", context)
        }
        guard let sid = body.sid, !sid.isEmpty else { return failure(.badRequest, "sid required", context) }
        let asset = self.asset
        return try await answer(context, sending: true) {
            do {
                _ = try await service.pay(sid, payer: principal.userID)
            } catch let refusal as SessionRefusal where refusal.reason == .sessionNotLocked {
                _ = try await service.lock(sid, payer: principal.userID)
                _ = try await service.pay(sid, payer: principal.userID)
            }
            let wallet = try await service.ledger.account(AccountID.wallet(user: principal.userID, asset: asset))
            let balance = wallet?.available ?? 0
            guard let cents = Int64(exactly: balance) else { throw SessionRefusal.invalid("amount", "balance beyond the compatible range") }
            return GotchuShapes.SendResponse(newBalanceCents: cents)
        }
    }

    // MARK: Helpers

    /// The session a transfer paid, when it is a session's payment: the posting of a lock's hold,
    /// which carries the session as its reference (``SessionService/reference(_:)``).
    private static func sessionPaid(by transfer: Transfer) -> String? {
        guard transfer.kind == .postPending, let reference = transfer.reference, reference == SessionService.reference(reference.id) else {
            return nil
        }
        return reference.id
    }

    /// The body as `Shape`, or `nil` when it is not JSON of that shape (Gotchu answers 400
    /// `invalid json` then, in its own words, not a problem document). Unknown members are let
    /// through here alone: this surface takes whatever the existing app sends.
    private func decode<Shape: Decodable>(_ shape: Shape.Type, _ request: Request, _ context: HubRequestContext) async throws -> Shape? {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        return try? context.requestDecoder.decode(Shape.self, from: Data(buffer.readableBytesView))
    }

    /// Runs `body` and answers its value as JSON, or a refusal in Gotchu's words and status.
    private func answer(_ context: HubRequestContext, sending: Bool = false, _ body: () async throws -> some Encodable) async throws -> Response {
        do {
            return try context.json(try await body())
        } catch let refusal as SessionRefusal {
            let (status, message) = Self.translate(refusal, sending: sending)
            return failure(status, message, context)
        }
    }

    /// Gotchu's status and words for each refusal; the rest are a 400 with the refusal's message.
    static func translate(_ refusal: SessionRefusal, sending: Bool) -> (HTTPResponse.Status, String) {
        switch refusal.reason {
        case .sessionNotFound: (.notFound, sending ? "session not found" : "not found")
        case .eidNotFound: (.notFound, "not found")
        case .sessionExpired, .lockExpired: (.gone, "expired")
        case .sessionCancelled: (.gone, "cancelled")
        case .sessionLocked, .sessionPaid, .shareAlreadyPaid: (.conflict, sending ? "busy/paid" : "busy")
        case .cannotPaySelf: (.badRequest, "cannot pay self")
        case .insufficientFunds: (.badRequest, "insufficient funds")
        case .walletNotFound: (.badRequest, "from wallet not found")
        case .sessionNotLocked, .ledgerRefused, .invalidField, .assetNotFound: (.badRequest, refusal.message)
        }
    }

    private func failure(_ status: HTTPResponse.Status, _ message: String, _ context: HubRequestContext) -> Response {
        (try? context.json(GotchuShapes.Failure(error: message), status: status)) ?? Response(status: status)
    }
}
