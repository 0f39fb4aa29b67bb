import Foundation
import HTTPTypes
public import Hummingbird
import Logging
import NIOCore
import Synchronization

/// How long keys are kept and how long a running request holds its key.
public struct IdempotencyConfiguration: Sendable {
    /// Keys are remembered at least this long (DESIGN §3.6 asks for 24 h).
    public var retention: Duration = .seconds(24 * 3600)
    /// A request still running after this long is presumed dead (its process crashed) and a retry
    /// with the same key may run it again.
    public var lockTimeout: Duration = .seconds(60)
    /// How often the expiry service deletes old keys.
    public var expiryInterval: Duration = .seconds(600)

    public init() {}
}

/// `Idempotency-Key` on POST (DESIGN §3.6): the same key and body replays the first response with
/// `Idempotency-Replayed: true`; the same key with another body is a 422; a retry while the first
/// is running is a 409.
///
/// Keys are scoped to the authenticated user, so two callers cannot collide or read each other's
/// responses. Responses with a 4xx status are stored and replayed like successes (the request will
/// fail the same way again); a 5xx or a thrown non-problem error releases the key so a retry runs.
///
/// A crash after the handler committed but before the response was stored leaves the key locked
/// for ``IdempotencyConfiguration/lockTimeout``; a retry after that runs the handler again. Handlers
/// that move money are safe regardless, because ledger transfers carry their own ids.
public struct IdempotencyMiddleware: RouterMiddleware {
    public typealias Context = HubRequestContext
    let store: IdempotencyStore

    public init(database: Database, clock: LedgerClock = .system, configuration: IdempotencyConfiguration = .init()) {
        self.store = IdempotencyStore(database: database, clock: clock, configuration: configuration)
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, let key = request.headers[.idempotencyKey], let principal = context.principal else {
            return try await next(request, context)
        }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem(.badRequest, code: "invalid_idempotency_key", detail: "An Idempotency-Key is 1 to 255 printable ASCII characters.")
        }
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        let scope = "user:\(principal.userID)"
        let hash = Self.requestHash(method: request.method.rawValue, path: request.uri.description, body: body)

        switch try await store.claim(scope: scope, key: key, requestHash: hash) {
        case .replay(let stored):
            return Self.response(replaying: stored)
        case .mismatch:
            throw Problem(
                .unprocessableContent,
                code: "idempotency_key_reused",
                detail: "This Idempotency-Key was used with a different request; use a new key for a new request."
            )
        case .inFlight:
            throw Problem(
                .conflict,
                code: "idempotency_request_in_progress",
                detail: "A request with this Idempotency-Key is still running; retry later."
            )
        case .proceed:
            break
        }

        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            let problem = ProblemMiddleware.problem(for: error, context: context)
            guard problem.status.code < 500 else {
                try? await store.release(scope: scope, key: key)
                throw error
            }
            response = try problem.response(from: request, context: context)
        }
        guard response.status.code < 500 else {
            try? await store.release(scope: scope, key: key)
            return response
        }
        let collected = try await Self.collect(response.body)
        let stored = IdempotencyStore.StoredResponse(
            status: response.status.code,
            contentType: response.headers[.contentType],
            location: response.headers[.location],
            body: collected
        )
        try await store.complete(scope: scope, key: key, response: stored)
        var copy = response
        copy.body = .init(byteBuffer: ByteBuffer(bytes: collected))
        return copy
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

    static func response(replaying stored: IdempotencyStore.StoredResponse) -> Response {
        var headers = HTTPFields()
        if let contentType = stored.contentType { headers[.contentType] = contentType }
        if let location = stored.location { headers[.location] = location }
        headers[.idempotencyReplayed] = "true"
        return Response(
            status: HTTPResponse.Status(code: stored.status),
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: stored.body))
        )
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

extension HTTPField.Name {
    public static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    public static let idempotencyReplayed = HTTPField.Name("Idempotency-Replayed")!
}
