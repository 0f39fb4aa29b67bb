import Foundation
import HubKernel
import Hummingbird
import Logging

/// Builds the HTTP application. The ledger's services run before the server starts and stop after
/// it (ServiceGroup order), so no request meets a stopped writer.
func buildApplication(
    configuration: HubConfiguration,
    database: Database,
    ledger: Ledger,
    logger: Logger
) -> some ApplicationProtocol {
    let router = buildRouter(database: database)
    return Application(
        router: router,
        configuration: .init(address: .hostname(configuration.listenHost, port: configuration.listenPort), serverName: "hubd"),
        services: ledger.services,
        logger: logger
    )
}

/// The routes. Health first; the `/v1` API arrives with the kernel HTTP issue.
func buildRouter(database: Database) -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.get("/healthz") { _, _ in
        HealthStatus(status: "ok", version: HubVersion.current)
    }
    router.get("/readyz") { _, _ -> Response in
        do {
            _ = try await database.read { try $0.queryFirst("SELECT 1") }
            return try jsonResponse(HealthStatus(status: "ready", version: HubVersion.current), status: .ok)
        } catch {
            return try jsonResponse(HealthStatus(status: "database unavailable", version: HubVersion.current), status: .serviceUnavailable)
        }
    }
    return router
}

struct HealthStatus: ResponseCodable {
    var status: String
    var version: String
}

func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
    let encoder = JSONEncoder()
    let data = try encoder.encode(value)
    return Response(
        status: status,
        headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(bytes: data))
    )
}
