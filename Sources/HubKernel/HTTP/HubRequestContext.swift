import Foundation
public import Hummingbird
public import HummingbirdWebSocket
import Logging
import NIOCore

/// The per-request context of every kernel and rail route.
///
/// Middleware fills it in as the request passes: ``AuthenticationMiddleware`` sets ``principal``, the
/// idempotency middleware keeps the collected body. Handlers read the caller from here and never from
/// headers, so a route cannot forget to authenticate in a different way from its neighbours.
///
/// It is a WebSocket request context too: a rail adds `group.ws(path) { … }` beside its other
/// routes, and the upgrade request passes the same middleware (metrics, problems, authentication)
/// before it is upgraded by the hub's one HTTP server.
public struct HubRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Where a `ws` route leaves its handler for the server to run once the connection is upgraded.
    public let webSocket = WebSocketHandlerReference<HubRequestContext>()
    /// The authenticated caller, or `nil` for an anonymous request.
    public var principal: Principal?
    /// The peer's address (`nil` in in-process tests), used to key rate limits.
    public let remoteAddress: String?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress
    }

    /// JSON bodies above this many bytes are refused with 413 when they are read.
    public var maxUploadSize: Int { HubJSON.maximumBodyBytes }

    /// The most that middleware reading a body ahead of its route (the `Idempotency-Key` check)
    /// collects: above every route's own limit (a JSON body's ``maxUploadSize``, an EVM image's
    /// 2 MiB), so the route refuses an oversize body with its own code and limit.
    public static let largestBodySize = 4 << 20

    public var requestDecoder: HubJSONDecoder { HubJSON.decoder }
    public var responseEncoder: HubJSONEncoder { HubJSON.encoder }

    /// The caller, or a 401 problem when the request carries no valid credentials.
    public func requirePrincipal() throws -> Principal {
        guard let principal else {
            throw Problem(.unauthorized, code: "unauthenticated", detail: "This endpoint needs `Authorization: Bearer <token or API key>`.")
        }
        return principal
    }
}

extension HubRequestContext {
    /// The caller, when its credential carries `scope` (access tokens carry every scope; API keys
    /// the ones they were made with). A key without the scope gets 403 `insufficient_scope`.
    public func requireScope(_ scope: APIScope) throws -> Principal {
        let principal = try requirePrincipal()
        guard principal.allows(scope: scope) else {
            throw Problem(.forbidden, code: "insufficient_scope", detail: "This API key lacks the `\(scope.rawValue)` scope.")
        }
        return principal
    }
}
