import Foundation
import HTTPTypes
import HubKernel
import HubTestSupport
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing

/// A real HTTP server on loopback that stands in for a customer's webhook receiver: it records
/// every request, checks its signature with ``StandardWebhookSigner/verify``, and can be told to
/// fail, to hold requests until released, or to answer with a given status and body.
final class WebhookReceiver: Sendable {
    struct Received: Sendable {
        let path: String
        let headers: [String: String]
        let body: [UInt8]
        /// `nil` when no secret was set for the path.
        let signatureValid: Bool?

        var webhookID: String? { headers["webhook-id"] }
        /// The `sequence` of the CloudEvent in the body.
        var sequence: Int64? {
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
            return (object?["sequence"] as? NSNumber)?.int64Value
        }
        var type: String? {
            ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])?["type"] as? String
        }
    }

    struct Reply: Sendable {
        var status: Int
        var body: [UInt8] = []
        var headers: [String: String] = [:]
    }

    private struct State {
        var received: [Received] = []
        var failuresLeft = 0
        var failStatus = 500
        var holding: Set<String> = []
        var held: [CheckedContinuation<Void, Never>] = []
        var secrets: [String: String] = [:]
        var replies: [String: Reply] = [:]
    }

    private let state = Mutex(State())
    private let boundPort = Atomic<Int>(0)

    var port: Int { boundPort.load(ordering: .acquiring) }

    /// The URL of one receiving path.
    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/hooks/\(name)" }

    func received(_ name: String? = nil) -> [Received] {
        state.withLock { state in name.map { name in state.received.filter { $0.path == "/hooks/\(name)" } } ?? state.received }
    }

    /// Answers the next `count` requests (any path) with `status`, as a receiver that is down.
    func failNext(_ count: Int, status: Int = 500) {
        state.withLock {
            $0.failuresLeft = count
            $0.failStatus = status
        }
    }

    /// Checks signatures on `name` with this secret from now on.
    func setSecret(_ secret: String, for name: String) { state.withLock { $0.secrets["/hooks/\(name)"] = secret } }

    /// A fixed answer for `name`.
    func setReply(_ reply: Reply, for name: String) { state.withLock { $0.replies["/hooks/\(name)"] = reply } }

    /// Requests to `name` that arrive from now on are recorded and then wait, unanswered, until
    /// ``release()``.
    func hold(_ name: String) { state.withLock { _ = $0.holding.insert("/hooks/\(name)") } }

    /// Answers every held request and stops holding.
    func release() {
        let held = state.withLock { state in
            state.holding = []
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    private func handle(path: String, headers: HTTPFields, body: [UInt8]) async -> Reply {
        var names: [String: String] = [:]
        for field in headers { names[field.name.canonicalName] = field.value }
        let secret = state.withLock { $0.secrets[path] }
        let valid = secret.map { secret in
            (try? StandardWebhookSigner(secret: secret).verify(
                id: names["webhook-id"] ?? "",
                timestamp: names["webhook-timestamp"] ?? "",
                signatures: names["webhook-signature"] ?? "",
                body: body,
                now: Int64(Date().timeIntervalSince1970)
            )) != nil
        }
        let (hold, reply) = state.withLock { state -> (Bool, Reply) in
            state.received.append(Received(path: path, headers: names, body: body, signatureValid: valid))
            if state.failuresLeft > 0 {
                state.failuresLeft -= 1
                return (false, Reply(status: state.failStatus, body: Array("down".utf8)))
            }
            return (state.holding.contains(path), state.replies[path] ?? Reply(status: 200, body: Array("ok".utf8)))
        }
        if hold {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.holding.contains(path) else { return true }
                    state.held.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        return reply
    }

    /// Starts a receiver on 127.0.0.1 with a port the system picks, runs `body`, and stops it.
    static func run(_ body: (WebhookReceiver) async throws -> Void) async throws {
        let receiver = WebhookReceiver()
        let router = Router()
        router.post("/hooks/{name}") { request, _ -> Response in
            var request = request
            let buffer = try await request.collectBody(upTo: 1 << 20)
            let reply = await receiver.handle(path: request.uri.path, headers: request.headers, body: Array(buffer.readableBytesView))
            var headers = HTTPFields()
            for (name, value) in reply.headers { headers[HTTPField.Name(name)!] = value }
            return Response(
                status: HTTPResponse.Status(code: reply.status),
                headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body))
            )
        }
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in receiver.boundPort.store(channel.localAddress?.port ?? -1, ordering: .releasing) },
            logger: logger
        )
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            do {
                try await eventually("the receiver to listen") { receiver.port != 0 }
                try #require(receiver.port > 0)
                try await body(receiver)
            } catch {
                receiver.release()
                await group.triggerGracefulShutdown()
                throw error
            }
            receiver.release()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
