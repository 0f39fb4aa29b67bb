import HTTPTypes
public import Hummingbird

/// Turns a bearer credential into a ``Principal``. The identity services implement it; the HTTP
/// layer only knows this one call.
public protocol Authenticator: Sendable {
    /// The principal for an access token or API key, or a 401 ``Problem`` that says why not.
    func authenticate(bearer credential: String) async throws -> Principal
}

/// Reads `Authorization: Bearer …` and sets ``HubRequestContext/principal``.
///
/// A request without the header passes through anonymous (routes that need a caller ask for it
/// with ``HubRequestContext/requirePrincipal()``); a request with a bad credential fails with 401
/// even on public routes, so a client with an expired token learns it at once. A refresh token
/// as the bearer leaves the request anonymous.
public struct AuthenticationMiddleware: RouterMiddleware {
    public typealias Context = HubRequestContext
    let authenticator: any Authenticator

    public init(authenticator: any Authenticator) {
        self.authenticator = authenticator
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            return try await next(request, context)
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw Problem(
                .unauthorized,
                code: "invalid_authorization",
                detail: "Use `Authorization: Bearer <access token or API key>`.",
                headers: [.wwwAuthenticate: "Bearer"]
            )
        }
        let credential = String(parts[1])
        // A refresh token proves no caller: the routes that take one as a bearer (DataUnion's
        // `/refresh`) read it from the header themselves, and anywhere else the request stays
        // anonymous, so a route that needs a caller still answers 401.
        if credential.hasPrefix(TokenService.refreshPrefix) { return try await next(request, context) }
        var context = context
        context.principal = try await authenticator.authenticate(bearer: credential)
        return try await next(request, context)
    }
}
