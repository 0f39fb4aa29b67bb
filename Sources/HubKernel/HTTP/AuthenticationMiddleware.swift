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
/// even on public routes, so a client with an expired token learns it at once.
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
        var context = context
        context.principal = try await authenticator.authenticate(bearer: String(parts[1]))
        return try await next(request, context)
    }
}
