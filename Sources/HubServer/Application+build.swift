import Foundation
import HubConsole
public import HubKernel
public import Hummingbird
public import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import Prometheus

/// Builds the HTTP application. The hub's services run before the server starts and stop after
/// it (ServiceGroup order), so no request meets a stopped writer. `onListening` runs once the
/// socket is bound: what the operator is told ("serving", the bootstrap token) waits for that,
/// so a busy port never announces a server that is about to die.
public func buildApplication(
    configuration: HubConfiguration,
    hub: Hub,
    onListening: @escaping @Sendable () async -> Void = {}
) -> some ApplicationProtocol {
    let router = buildRouter(hub: hub)
    return Application(
        router: router,
        server: buildServer(router: router),
        configuration: .init(address: .hostname(configuration.listenHost, port: configuration.listenPort), serverName: "hubd"),
        services: hub.services,
        onServerRunning: { _ in await onListening() },
        logger: hub.logger
    )
}

/// The hub's HTTP/1.1 server. A request asking to upgrade to a WebSocket passes through `router`
/// too, middleware and all, and is upgraded when it reaches a `ws` route (a chain's
/// `GET …/chains/{id}/rpc`, for `eth_subscribe`); any other is answered 400. One port serves both,
/// so a dapp needs one URL and the kernel's middleware sees every connection.
public func buildServer(router: Router<HubRequestContext>) -> HTTPServerBuilder {
    // A frame from a client carries a JSON-RPC request (a batch at most): as large as a JSON body
    // may be (1 MiB). Pings every 30 s find peers that went away without closing.
    .http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: 1 << 20)))
}

/// The routes and the middleware every request passes, outermost first: metrics (counts what the
/// client saw), problems (every error as `problem+json`), request log, authentication,
/// idempotency keys. The admin console's pages pass them too and add their own security headers.
public func buildRouter(hub: Hub) -> Router<HubRequestContext> {
    let router = Router(context: HubRequestContext.self)
    router.add(middleware: HTTPMetricsMiddleware(factory: hub.metricsFactory))
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.add(middleware: AuthenticationMiddleware(authenticator: hub.authenticator))
    router.add(middleware: IdempotencyMiddleware(database: hub.database, configuration: hub.idempotency))

    addOperationalRoutes(to: router, hub: hub)
    let v1 = router.group("v1")
    AuthController(identity: hub.identity, limiter: hub.limiter, devLogin: hub.devLogin, credentialsChanged: hub.credentialsChanged)
        .addRoutes(to: v1)
    UsersController(identity: hub.identity, credentialsChanged: hub.credentialsChanged).addRoutes(to: v1)
    LedgerController(ledger: hub.ledger, railIDs: Set(hub.plugins.builtIn.map { $0.id }), userExists: hub.userExists).addRoutes(to: v1)
    LedgerStatsController(ledger: hub.ledger).addRoutes(to: v1)
    EventsController(bus: hub.bus).addRoutes(to: v1)
    WebhooksController(store: hub.webhooks, nudge: { [dispatcher = hub.webhookDispatcher] in dispatcher.nudge() }).addRoutes(to: v1)
    hub.plugins.addRoutes(to: v1)
    addConsole(to: router, hub: hub)
    return router
}

/// The admin console at `/admin`. Without its resources (a broken install) the API still serves
/// and the log says why the console is missing.
func addConsole(to router: Router<HubRequestContext>, hub: Hub) {
    do {
        try HubConsole(plugins: hub.plugins).addRoutes(to: router)
    } catch {
        hub.logger.error("the admin console is unavailable", metadata: ["error": "\(error)"])
    }
}

/// `/healthz`, `/readyz`, `/metrics`, `/openapi.json`: unauthenticated, for probes and tools.
func addOperationalRoutes(to router: Router<HubRequestContext>, hub: Hub) {
    let (database, plugins, keyFile, drain) = (hub.database, hub.plugins, hub.secrets.keyFile, hub.drain)
    router.get("/healthz") { _, context in
        try context.json(HealthStatus(status: "ok", version: HubVersion.current))
    }
    // Ready: the instance is not stopping, the database answers, the secrets key file is still
    // private, and no running rail is down (e.g. the local chain's key file opened to others after start-up).
    router.get("/readyz") { _, context -> Response in
        guard !drain.isDraining else {
            return try context.json(
                HealthStatus(status: "draining: this instance is stopping", version: HubVersion.current),
                status: .serviceUnavailable
            )
        }
        let keyProblem: String?
        do {
            // The key file's stat runs on the reader's thread with the query, off the cooperative pool.
            keyProblem = try await database.read { connection in
                _ = try connection.queryFirst("SELECT 1")
                return SecretsKeyFile.problem(at: keyFile)
            }
        } catch {
            return try context.json(HealthStatus(status: "database unavailable", version: HubVersion.current), status: .serviceUnavailable)
        }
        if let keyProblem {
            return try context.json(HealthStatus(status: keyProblem, version: HubVersion.current), status: .serviceUnavailable)
        }
        let down = await plugins.downPlugins()
        guard down.isEmpty else {
            let status = down.map { "plugin \($0.id) down: \($0.detail)" }.joined(separator: "; ")
            return try context.json(HealthStatus(status: status, version: HubVersion.current), status: .serviceUnavailable)
        }
        return try context.json(HealthStatus(status: "ready", version: HubVersion.current))
    }
    let registry = hub.metrics
    router.get("/metrics") { _, _ -> Response in
        Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer()))
        )
    }
    router.get("/openapi.json") { _, _ -> Response in
        guard let document = OpenAPIDocument.bytes else {
            throw Problem(
                .internalServerError,
                code: "openapi_missing",
                detail: "The OpenAPI document was not installed beside the hubd executable (hubd_HubServer.resources)."
            )
        }
        return Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: document))
        )
    }
}

struct HealthStatus: Codable, Sendable {
    var status: String
    var version: String
}
