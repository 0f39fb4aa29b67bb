import Foundation
import HTTPTypes
public import Hummingbird

/// `/v1/auth/*`: password sign-in, refresh, logout, the first-admin bootstrap, wallet sign-in and
/// (only when enabled) dev login. Every route here is reachable without credentials, so each one
/// is rate-limited per client address.
public struct AuthController: Sendable {
    let identity: Identity
    let limiter: RateLimiter
    let devLogin: Bool
    /// Called after a change that must stop a credential working at once (logout, a reused
    /// refresh token ending its session).
    let credentialsChanged: @Sendable () async -> Void

    public init(identity: Identity, limiter: RateLimiter, devLogin: Bool, credentialsChanged: @escaping @Sendable () async -> Void = {}) {
        self.identity = identity
        self.limiter = limiter
        self.devLogin = devLogin
        self.credentialsChanged = credentialsChanged
    }

    public func addRoutes(to v1: RouterGroup<HubRequestContext>) {
        let auth = v1.group("auth").add(middleware: RateLimitMiddleware(limiter: limiter, bucket: "auth", rule: .authentication))
        auth.post("login", use: login)
        auth.post("refresh", use: refresh)
        auth.post("logout", use: logout)
        auth.post("bootstrap", use: bootstrap)
        auth.post("wallet/challenge", use: walletChallenge)
        auth.post("wallet/login", use: walletLogin)
        if devLogin { auth.post("dev-login", use: developmentLogin) }
    }

    @Sendable func login(_ request: Request, context: HubRequestContext) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(as: LoginRequest.self, context: context)
        let signedIn = try await identity.users.login(email: body.email, password: body.password, from: context.remoteAddress)
        return try context.json(SessionRepresentation(signedIn.tokens, user: signedIn.user))
    }

    @Sendable func refresh(_ request: Request, context: HubRequestContext) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(as: RefreshRequest.self, context: context)
        let tokens: TokenPair
        do {
            tokens = try await identity.tokens.refresh(body.refreshToken)
        } catch {
            await credentialsChanged()  // a reused token ends its whole session
            throw error
        }
        return try context.json(SessionRepresentation(tokens, user: nil))
    }

    @Sendable func logout(_ request: Request, context: HubRequestContext) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(as: RefreshRequest.self, context: context)
        try await identity.tokens.logout(refreshToken: body.refreshToken)
        await credentialsChanged()
        return Response(status: .noContent)
    }

    @Sendable func bootstrap(_ request: Request, context: HubRequestContext) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(as: BootstrapRequest.self, context: context)
        let signedIn = try await identity.users.redeemBootstrap(
            token: body.token,
            email: body.email,
            password: body.password,
            displayName: body.displayName ?? "Administrator"
        )
        return try context.json(SessionRepresentation(signedIn.tokens, user: signedIn.user), status: .created)
    }

    @Sendable func walletChallenge(_ request: Request, context: HubRequestContext) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(as: WalletChallengeRequest.self, context: context)
        let challenge = try await identity.wallets.challenge(scheme: body.scheme, address: body.address)
        return try context.json(WalletChallengeRepresentation(challenge), status: .created)
    }

    @Sendable func walletLogin(_ request: Request, context: HubRequestContext) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(as: WalletLoginRequest.self, context: context)
        guard let signature = HexText.decode(body.signature), !signature.isEmpty else {
            throw Problem.invalid("signature", "The signature is hex, with or without `0x`.")
        }
        let signedIn = try await identity.wallets.login(
            nonce: body.nonce,
            signature: signature,
            message: body.message,
            from: context.remoteAddress
        )
        return try context.json(SessionRepresentation(signedIn.tokens, user: signedIn.user), status: signedIn.created ? .created : .ok)
    }

    /// Signs in as an existing user by email alone. Registered only when `HUB_DEV_LOGIN=1`.
    @Sendable func developmentLogin(_ request: Request, context: HubRequestContext) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(as: DevLoginRequest.self, context: context)
        guard let user = try await identity.users.user(email: body.email) else { throw Problem.notFound("user") }
        let tokens = try await identity.tokens.issue(for: user)
        return try context.json(SessionRepresentation(tokens, user: user))
    }
}
