import Foundation
import HTTPTypes
import HubKernel
import Hummingbird

/// The rail's REST routes, mounted at `/v1/rails/ble-sessions`. They run behind the kernel's
/// middleware: the caller is `context.principal`, the service's refusals (and the routes' own
/// problems) leave as `problem+json`, and an `Idempotency-Key` on a POST replays the first
/// response. (Every transition commits as a unit of work, which tells the event bus itself.)
struct SessionsController: Sendable {
    let service: SessionService
    /// Shared with the Gotchu surface: one budget per client for both resolve routes.
    let resolveLimit: RateLimitMiddleware

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("sessions", use: create)
        group.get("sessions", use: list)
        group.get("sessions/{id}", use: show)
        // Lock and pay write only through their batched step, which records the request's
        // `Idempotency-Key`: the kernel then skips its lookup of the key on a reader.
        let answeredInUnit = group.group().add(middleware: AnswersInUnit())
        answeredInUnit.post("sessions/{id}/lock", use: lock)
        answeredInUnit.post("sessions/{id}/pay", use: pay)
        group.post("sessions/{id}/cancel", use: cancel)
        group.post("sessions/{id}/rotate", use: rotate)
        // Anyone nearby may resolve an EID, signed in or not; per client, a burst then a steady rate.
        group.group("resolve").add(middleware: resolveLimit).post(use: resolve)
    }

    // MARK: Payee

    struct CreateRequest: Decodable {
        struct Split: Decodable {
            var mode: String
            var payers: Int
        }
        var amount: MinorUnits
        var asset: String?
        var ttlSeconds: Int?
        var split: Split?
    }

    @Sendable func create(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: CreateRequest.self, context: context)
        var new = SessionService.NewSession(
            payee: principal.userID,
            payeeDisplayName: principal.displayName,
            amount: body.amount.value,
            ttlSeconds: body.ttlSeconds
        )
        if let code = body.asset {
            guard let asset = AssetCode(code) else { throw Problem.invalid("asset", "\"\(code)\" is not an asset code.") }
            new.asset = asset
        }
        if let split = body.split {
            guard let mode = PaymentSession.SplitMode(rawValue: split.mode) else {
                throw Problem.invalid("split.mode", "A split's mode is \"single\" or \"equal\".")
            }
            new.splitMode = mode
            new.payers = split.payers
        }
        let session = try await service.create(new)
        return try context.json(
            SessionRepresentation(session, withAdvertisement: true),
            status: .created,
            headers: [.location: "/v1/rails/ble-sessions/sessions/\(session.id)"]
        )
    }

    /// The caller's sessions as payee (admins: everyone's, or `?payee=`), oldest first;
    /// `?status=`, `?limit=`, `?cursor=`.
    @Sendable func list(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let status = try request.query("status") { PaymentSession.Status(rawValue: $0) }
        var payee: UserID? = principal.userID
        if principal.isAdmin { payee = try request.query("payee") { UserID($0) } }
        let limit = try request.pageLimit()
        let after = try request.query("cursor") { Int64($0).flatMap { $0 >= 0 ? $0 : nil } } ?? 0
        let rows = try await service.database.read { [payee] in
            try SessionStore.sessions(payee: payee, status: status, afterSeq: after, limit: limit + 1, on: $0)
        }
        let next = rows.count > limit ? String(rows[limit - 1].seq) : nil
        return try context.json(Page(data: rows.prefix(limit).map { SessionRepresentation($0.session) }, nextCursor: next))
    }

    /// The payee (or an admin) sees the session, its advertisement and every lock; a payer sees
    /// the session and their own locks; anyone else gets a 404.
    @Sendable func show(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let id = try context.parameters.require("id")
        let found = try await service.database.read { connection -> (PaymentSession, [SessionLock])? in
            guard let session = try SessionStore.session(id, on: connection) else { return nil }
            return (session, try SessionStore.locks(session: id, on: connection))
        }
        guard let (session, locks) = found else { throw SessionRefusal.notFound() }
        let isPayee = session.payeeID == principal.userID || principal.isAdmin
        let visible = isPayee ? locks : locks.filter { $0.payerID == principal.userID }
        guard isPayee || !visible.isEmpty else { throw SessionRefusal.notFound() }
        return try context.json(
            SessionDetailRepresentation(
                session: SessionRepresentation(session, withAdvertisement: isPayee && !session.status.isFinal),
                locks: visible.map(LockRepresentation.init)
            )
        )
    }

    @Sendable func cancel(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let session = try await service.cancel(try context.parameters.require("id"), by: principal)
        return try context.json(SessionRepresentation(session))
    }

    @Sendable func rotate(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        let session = try await service.rotate(try context.parameters.require("id"), by: principal)
        return try context.json(SessionRepresentation(session, withAdvertisement: true))
    }

    // MARK: Payer

    struct ResolveRequest: Decodable {
        var eid: String?
        var advertisement: String?
    }

    /// `{"eid": "<10 hex digits>"}` or `{"advertisement": "<hex of the advertising data as scanned>"}`.
    @Sendable func resolve(_ request: Request, context: HubRequestContext) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(as: ResolveRequest.self, context: context)
        let eid: EphemeralID
        switch (body.eid, body.advertisement) {
        case (let text?, nil):
            guard let parsed = EphemeralID(hex: text) else {
                throw Problem.invalid("eid", "An EID is 10 hex digits (5 bytes).")
            }
            eid = parsed
        case (nil, let text?):
            guard let bytes = HexText.decode(text), bytes.count <= 62 else {
                throw Problem.invalid("advertisement", "The advertising data is hex text of at most 62 bytes (advertisement and scan response).")
            }
            do {
                eid = try Advertisement.ephemeralID(in: bytes)
            } catch {
                throw Problem.invalid("advertisement", "No session id in the advertising data: \(error.reason).", code: "invalid_advertisement")
            }
        default:
            throw Problem.invalid("eid", "Send exactly one of `eid` and `advertisement`.")
        }
        let (session, share) = try await service.resolve(eid)
        return try context.json(ResolvedSessionRepresentation(session, nextShare: share))
    }

    @Sendable func lock(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        return try await service.lockReply(try context.parameters.require("id"), payer: principal.userID).response()
    }

    /// Pays the caller's locked share. The `Idempotency-Key` is required: the kernel's middleware
    /// then replays the first answer to a retry instead of running it again.
    @Sendable func pay(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        guard request.headers[.idempotencyKey] != nil else { throw Self.idempotencyKeyRequired }
        return try await service.payReply(try context.parameters.require("id"), payer: principal.userID).response()
    }

    /// A header this route needs: an HTTP matter, so an HTTP problem (400) rather than a refusal.
    static let idempotencyKeyRequired = Problem(
        .badRequest,
        code: "idempotency_key_required",
        detail: "Paying needs an Idempotency-Key header, so a retry cannot pay twice."
    )
}
