import Foundation
import HTTPTypes
public import Hummingbird
import Logging
import NIOCore
import Synchronization

/// How long keys are kept.
public struct IdempotencyConfiguration: Sendable {
    /// Keys are remembered at least this long (DESIGN §3.6 asks for 24 h).
    public var retention: Duration = .seconds(24 * 3600)
    /// How often the expiry service deletes old keys.
    public var expiryInterval: Duration = .seconds(600)

    public init() {}
}

/// `Idempotency-Key` on POST (DESIGN §3.6): the same key and body replays the first response with
/// `Idempotency-Replayed: true`; the same key with another body is a 422; a retry while the first
/// is still running in this process is a 409.
///
/// Keys are scoped to the authenticated user, so two callers cannot collide or read each other's
/// responses. The key is recorded with its reply by the unit of work that answers the request
/// (``Ledger/respond(as:_:)``), in the same transaction as the request's change: one commit, and
/// after a crash the key holds its reply or does not exist, so a retry is never kept waiting for
/// a dead process. A request that wrote nothing through a unit (a refusal before any write) is
/// recorded on its own afterwards. Replies with a 4xx status are kept and replayed like successes
/// (the request would fail the same way again); a 5xx leaves the key free so a retry runs.
///
/// A reply that carries `Cache-Control: no-store` (key material) is never kept: the key is
/// released instead, so a retry runs the request again. Only requests that are safe to repeat (an
/// export, a read) answer so.
///
/// Two instances running the same key at once: the second's unit finds the first's row when it
/// records (PostgreSQL makes it wait for the first's commit), rolls back, and replays the first's
/// reply.
///
/// Before the handler runs, the key is looked up on a reader, so that a retry of a finished
/// request is answered without running anything. Routes marked ``AnswersInUnit`` skip that read
/// (once one of their requests has run): their unit's own record finds the key.
public struct IdempotencyMiddleware: RouterMiddleware {
    public typealias Context = HubRequestContext
    let store: IdempotencyStore
    let configuration: IdempotencyConfiguration
    private let running = RunningKeys()
    private let answeredInUnit = UnitAnsweredRoutes()

    public init(database: Database, clock: LedgerClock = .system, configuration: IdempotencyConfiguration = .init()) {
        self.store = IdempotencyStore(database: database, clock: clock, configuration: configuration)
        self.configuration = configuration
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, let key = request.headers[.idempotencyKey], let principal = context.principal else {
            return try await next(request, context)
        }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem(.badRequest, code: "invalid_idempotency_key", detail: "An Idempotency-Key is 1 to 255 printable ASCII characters.")
        }
        var request = request
        // Up to the largest body any route takes: the route then holds it to its own limit, and
        // the caller hears that limit rather than this one.
        let body = try await request.collectBody(upTo: HubRequestContext.largestBodySize)
        let scope = "user:\(principal.userID)"
        let hash = Self.requestHash(method: request.method.rawValue, path: request.uri.description, body: body)

        let route = context.endpointPath ?? ""
        if !answeredInUnit.contains(route) {
            switch try await store.lookup(scope: scope, key: key, requestHash: hash) {
            case .replay(let reply): return reply.response(replayed: true)
            case .mismatch: throw Self.reusedKey
            case .fresh: break
            }
        }
        guard running.start(scope, key) else {
            throw Problem(
                .conflict,
                code: "idempotency_request_in_progress",
                detail: "A request with this Idempotency-Key is still running; retry later."
            )
        }
        defer { running.finish(scope, key) }

        let claim = IdempotencyClaim(
            scope: scope,
            key: key,
            requestHash: hash,
            clock: store.clock,
            retention: configuration.retention,
            replyForError: { error in
                let problem = ProblemMiddleware.problem(for: error, context: context)
                return problem.status.code < 500 ? problem.reply : nil
            },
            markRouteAnsweredInUnit: { [answeredInUnit] in answeredInUnit.insert(route) }
        )
        let response: Response
        do {
            response = try await IdempotencyClaim.$current.withValue(claim) { try await next(request, context) }
        } catch IdempotencyConflict.replay(let reply) {
            return reply.response(replayed: true)
        } catch IdempotencyConflict.mismatch {
            throw Self.reusedKey
        } catch {
            let problem = ProblemMiddleware.problem(for: error, context: context)
            if !claim.recorded && problem.status.code < 500 {
                // The key may hold an answer already: a finished request's, on a route that
                // skipped the lookup, or a concurrent one's. That answer stands.
                switch try await store.record(scope: scope, key: key, requestHash: hash, reply: problem.reply) {
                case .fresh: break
                case .replay(let first): return first.response(replayed: true)
                case .mismatch: throw Self.reusedKey
                }
            }
            throw error
        }
        if Self.forbidsStoring(response.headers) {
            // A unit may have recorded the key with its writes before the handler marked the reply.
            if claim.recorded { try await store.release(scope: scope, key: key, requestHash: hash) }
            return response
        }
        guard !claim.recorded, response.status.code < 500 else { return response }
        let reply = HTTPReply(
            status: response.status.code,
            contentType: response.headers[.contentType],
            location: response.headers[.location],
            body: try await Self.collect(response.body)
        )
        switch try await store.record(scope: scope, key: key, requestHash: hash, reply: reply) {
        case .fresh: return reply.response()
        case .replay(let first): return first.response(replayed: true)
        case .mismatch: throw Self.reusedKey
        }
    }

    private static let reusedKey = Problem(
        .unprocessableContent,
        code: "idempotency_key_reused",
        detail: "This Idempotency-Key was used with a different request; use a new key for a new request."
    )

    /// Whether a `Cache-Control` field of the response says `no-store`.
    static func forbidsStoring(_ headers: HTTPFields) -> Bool {
        headers[values: .cacheControl].contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "no-store" }
        }
    }

    /// SHA-256 over method, path and body. A JSON body is hashed in a canonical form (keys sorted,
    /// no insignificant whitespace) so that a client library that orders members differently on a
    /// retry is not told it sent another request.
    static func requestHash(method: String, path: String, body: ByteBuffer) -> [UInt8] {
        var bytes = Array(method.utf8)
        bytes.append(0)
        bytes.append(contentsOf: path.utf8)
        bytes.append(0)
        let raw = Data(body.readableBytesView)
        if let object = try? JSONSerialization.jsonObject(with: raw, options: [.fragmentsAllowed]),
            let canonical = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        {
            bytes.append(contentsOf: canonical)
        } else {
            bytes.append(contentsOf: raw)
        }
        return SHA256Digest.hash(bytes)
    }

    static func collect(_ body: ResponseBody) async throws -> [UInt8] {
        let collector = CollectingWriter()
        try await body.write(collector)
        return collector.bytes.withLock { $0 }
    }
}

/// Gathers a response body in memory (API responses are small JSON documents).
private final class CollectingWriter: ResponseBodyWriter, Sendable {
    let bytes = Mutex<[UInt8]>([])
    func write(_ buffer: ByteBuffer) async throws { bytes.withLock { $0.append(contentsOf: buffer.readableBytesView) } }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// Marks the routes below it as answered in a unit of work: their handlers change nothing
/// (through another unit or not), and call no other system, before the unit that records the
/// request's `Idempotency-Key` with its reply (``Ledger/respond(as:_:)``,
/// ``PluginContext/respond(_:)``, a ``BatchedStep`` member's ``UnitOfWork/answer(_:)``). That
/// unit's record then finds a key a finished request holds: it rolls the unit back and the
/// middleware replays the stored reply. So ``IdempotencyMiddleware`` needs no lookup on a reader
/// first, which saves a round trip for every keyed request of the route.
///
/// The middleware learns of a route from its first request (which it looks up as any other):
/// ```swift
/// group.group().add(middleware: AnswersInUnit()).post("sessions/{id}/pay", use: pay)
/// ```
public struct AnswersInUnit: RouterMiddleware {
    public typealias Context = HubRequestContext

    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        IdempotencyClaim.current?.markRouteAnsweredInUnit()
        return try await next(request, context)
    }
}

/// The routes (``HubRequestContext`` endpoint paths) marked ``AnswersInUnit``.
private final class UnitAnsweredRoutes: Sendable {
    private let routes = Mutex<Set<String>>([])

    func contains(_ route: String) -> Bool { routes.withLock { $0.contains(route) } }
    func insert(_ route: String) { _ = routes.withLock { $0.insert(route) } }
}

/// Keys whose request is running in this process: a concurrent retry gets a 409 instead of
/// running the handler a second time. (Another instance's concurrent retry is caught when its
/// unit records the key.) In memory only, so a crash leaves nothing held.
private final class RunningKeys: Sendable {
    private let keys = Mutex<Set<String>>([])

    func start(_ scope: String, _ key: String) -> Bool { keys.withLock { $0.insert(scope + "\u{0}" + key).inserted } }
    func finish(_ scope: String, _ key: String) { _ = keys.withLock { $0.remove(scope + "\u{0}" + key) } }
}

extension HTTPField.Name {
    public static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    public static let idempotencyReplayed = HTTPField.Name("Idempotency-Replayed")!
}
