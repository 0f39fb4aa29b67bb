import HubKernel
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// `GET /v1/rails/localchain/chains/{id}/rpc` upgraded to a WebSocket: the same JSON-RPC as the
/// `POST` on that path (each text or binary message a call or a batch, answered by the same
/// ``JSONRPCEndpoint``), plus `eth_subscribe`/`eth_unsubscribe`, whose notifications come from
/// ``NewBlockFeed``. Public like the `POST`: no credentials; a browser's `Origin` must be one the
/// chain's CORS list allows (a page of another site cannot use a visitor's connection).
///
/// Limits, each with a clear end: at most ``Limits/connections`` sockets per instance (one more is
/// closed at once with 1013 "try again later"), ``RPCSocket/Limits/subscriptions`` per socket
/// (-32005), and ``RPCSocket/Limits/pending`` messages waiting for a slow reader (the socket is
/// closed with 1008 and the reason). Two tasks per socket, a reader and a writer, both ended when
/// the socket closes.
struct JSONRPCWebSocket: Sendable {
    struct Limits: Sendable, Equatable {
        var connections = 1_000
        var socket = RPCSocket.Limits()
    }

    let endpoint: JSONRPCEndpoint
    let feed: NewBlockFeed
    let limits: Limits
    let open: OpenSockets

    /// A client message (a call or a batch) is at most a JSON body's size.
    static let maxMessage = 1 << 20

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.ws("chains/{id}/rpc", shouldUpgrade: shouldUpgrade, onUpgrade: serve)
    }

    /// Upgrades a request for a chain that exists, from an allowed origin (or none). A plain `GET`
    /// (no `Upgrade: websocket`) reaches here too, through the HTTP router: it is told to upgrade.
    @Sendable func shouldUpgrade(_ request: Request, context: HubRequestContext) async throws -> RouterShouldUpgrade {
        guard let text = context.parameters.get("id"), let chainID = UInt64(text), try await endpoint.methods.chainExists(chainID) else {
            throw Problem.notFound("chain")
        }
        guard request.headers[.upgrade]?.lowercased() == "websocket" else {
            throw Problem(
                .upgradeRequired,
                code: "websocket_upgrade_required",
                detail: "GET on a chain's JSON-RPC path opens a WebSocket (Upgrade: websocket); send JSON-RPC over HTTP with POST.",
                headers: [.upgrade: "websocket"]
            )
        }
        // Every Origin sent must be allowed (a client may send more than one; a browser sends its page's).
        for origin in request.headers[values: .origin] where endpoint.cors.allowedOrigin(origin, chainID: chainID) == nil {
            throw Problem.forbidden("This origin may not call chain \(chainID)'s JSON-RPC endpoint from a browser.")
        }
        return .upgrade([:])
    }

    @Sendable func serve(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, _ context: WebSocketRouterContext<HubRequestContext>)
        async throws
    {
        guard let text = context.requestContext.parameters.get("id"), let chainID = UInt64(text) else { return }
        guard open.enter(max: limits.connections) else {
            // 1013: "try again later" (RFC 6455's registry).
            try await outbound.close(.unknown(1013), reason: "too many WebSocket connections (\(limits.connections)); try again later")
            return
        }
        defer { open.leave() }
        let socket = RPCSocket(limits: limits.socket)
        defer { socket.finish() }
        let endpoint = self.endpoint
        try await feed.withSink(chainID: chainID, deliver: { socket.receive($0) }) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await message in socket.outbox {
                        try await outbound.writeTextMessage(String(decoding: message, as: UTF8.self))
                    }
                    if socket.overflowed {
                        try await outbound.close(
                            .policyViolation,
                            reason: "more than \(socket.limits.pending) messages waiting: the client reads too slowly"
                        )
                    }
                }
                group.addTask {
                    for try await message in inbound.messages(maxSize: Self.maxMessage) {
                        let body: [UInt8]
                        switch message {
                        case .text(let text): body = Array(text.utf8)
                        case .binary(let buffer): body = Array(buffer.readableBytesView)
                        }
                        socket.answered(await endpoint.respond(to: body, chainID: chainID, socket: socket))
                    }
                }
                // Either side ending ends the connection: the client left, or it overflowed.
                try await group.next()
                group.cancelAll()
            }
        }
        context.logger.debug("a JSON-RPC WebSocket closed", metadata: ["localchain.chain": "\(chainID)"])
    }
}

/// The WebSocket connections open on this instance (for ``JSONRPCWebSocket/Limits/connections``).
final class OpenSockets: Sendable {
    private let count = Mutex(0)

    var current: Int { count.withLock { $0 } }

    /// Counts one more connection; `false` (and no count) when `max` are open.
    func enter(max: Int) -> Bool {
        count.withLock { count in
            guard count < max else { return false }
            count += 1
            return true
        }
    }

    func leave() { count.withLock { $0 -= 1 } }
}
