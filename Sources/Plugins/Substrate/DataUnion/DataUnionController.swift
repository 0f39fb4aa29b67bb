import Foundation
import HTTPTypes
import HubKernel
import Hummingbird

/// DataUnion's login routes (the Brainstem app's backend, `specs/rails.md` §4.5) under
/// `/v1/rails/substrate/dataunion`, so the app signs in to the hub by changing its base URL:
/// `POST register`, `GET get-nonce?public_address=`, `POST login`, `POST refresh`, with its
/// bodies and its `{"status": "failed", "message": …}` answers (400 for bad input, 401 for a
/// wrong signature or token, as the app parses both).
///
/// Underneath it is the kernel's wallet sign-in with the rail's `sr25519` scheme: the nonce is a
/// bare-nonce challenge (``WalletSignIn/bareNonceChallenge(scheme:address:)``), single use and
/// expiring after the kernel's challenge lifetime, which DataUnion's never did; the wallet signs
/// its decimal digits (raw, or `<Bytes>`-wrapped as polkadot.js does); the tokens are the
/// kernel's, so the app's access token works on every hub route; and a member is created at the
/// first sign-in, as with `/v1/auth/wallet`. Off by default (`dataunion_compatible`): a number
/// alone names no site, so it is offered only for clients that sign nothing else.
struct DataUnionController: Sendable {
    let identity: Identity
    let limit: RateLimitMiddleware

    static let scheme = SubstrateSignatureVerifier.Algorithm.sr25519.rawValue

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        let routes = group.group("dataunion").add(middleware: limit)
        routes.post("register", use: register)
        routes.get("get-nonce", use: getNonce)
        routes.post("login", use: login)
        routes.post("refresh", use: refresh)
    }

    /// A new address gets its nonce; one already signed in before gets 400 `already exists`, as
    /// DataUnion answers, and the app then asks `get-nonce`.
    @Sendable func register(_ request: Request, context: HubRequestContext) async throws -> Response {
        guard let body = try await decode(DataUnionShapes.RegisterRequest.self, request, context) else {
            return failure(.badRequest, "invalid json", context)
        }
        guard let address = body.publicAddress, !address.isEmpty else { return failure(.badRequest, "public_address required", context) }
        if let wallet = body.wallet, wallet != "peaq" {
            return failure(.badRequest, "wallet '\(wallet.prefix(32))' is not supported here; use peaq", context)
        }
        return try await answer(context) {
            guard try await identity.wallets.link(scheme: Self.scheme, address: address) == nil else {
                return failure(.badRequest, "already exists", context)
            }
            let challenge = try await identity.wallets.bareNonceChallenge(scheme: Self.scheme, address: address)
            return try context.json(DataUnionShapes.Nonce(status: "success", nonce: try Self.number(challenge)))
        }
    }

    /// The address's open nonce (the same until it is used or expires), `status` saying whether
    /// the address has signed in before. An address that has not may sign in with it too.
    @Sendable func getNonce(_ request: Request, context: HubRequestContext) async throws -> Response {
        guard let address = request.uri.queryParameters.get("public_address"), !address.isEmpty else {
            return failure(.badRequest, "public_address required", context)
        }
        return try await answer(context) {
            let known = try await identity.wallets.link(scheme: Self.scheme, address: address) != nil
            let challenge = try await identity.wallets.bareNonceChallenge(scheme: Self.scheme, address: address)
            return try context.json(DataUnionShapes.Nonce(status: known ? "exists" : "not found", nonce: try Self.number(challenge)))
        }
    }

    @Sendable func login(_ request: Request, context: HubRequestContext) async throws -> Response {
        guard let body = try await decode(DataUnionShapes.LoginRequest.self, request, context) else {
            return failure(.badRequest, "invalid json", context)
        }
        guard let address = body.publicAddress, !address.isEmpty else { return failure(.badRequest, "public_address required", context) }
        guard let text = body.signature, let signature = HexText.decode(text), signature.count == 64 else {
            return failure(.badRequest, "signature must be 64 bytes of hex", context)
        }
        return try await answer(context) {
            let signedIn = try await identity.wallets.login(
                bareNonceOf: address,
                scheme: Self.scheme,
                signature: signature,
                from: context.remoteAddress
            )
            return try context.json(DataUnionShapes.Tokens(accessToken: signedIn.tokens.accessToken, refreshToken: signedIn.tokens.refreshToken))
        }
    }

    /// `Authorization: Bearer <refresh token>` (the kernel's authentication leaves such a
    /// request anonymous) → a new access token and the next refresh token.
    @Sendable func refresh(_ request: Request, context: HubRequestContext) async throws -> Response {
        let parts = request.headers[.authorization]?.split(separator: " ", maxSplits: 1) ?? []
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return failure(.unauthorized, "send the refresh token as Authorization: Bearer", context)
        }
        return try await answer(context) {
            let tokens = try await identity.tokens.refresh(String(parts[1]))
            return try context.json(DataUnionShapes.Tokens(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken))
        }
    }

    // MARK: DataUnion's dialect

    /// Runs `body`, answering identity's refusals in DataUnion's words: bad input 400, a wrong
    /// signature, nonce or token 401, too many attempts 429 with `Retry-After`.
    private func answer(_ context: HubRequestContext, _ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error as IdentityError {
            var response = failure(Self.status(of: error.code.kind), error.message, context)
            if let wait = error.retryAfter { response.headers[.retryAfter] = String(max(1, wait.components.seconds)) }
            return response
        } catch let error as SubstrateError {
            return failure(.badRequest, error.message, context)
        }
    }

    static func status(of kind: IdentityError.Kind) -> HTTPResponse.Status {
        switch kind {
        case .unauthenticated, .notFound, .forbidden: .unauthorized
        case .rateLimited: .tooManyRequests
        default: .badRequest
        }
    }

    /// A bare-nonce challenge's nonce is its number.
    static func number(_ challenge: WalletChallenge) throws -> UInt64 {
        guard let number = UInt64(challenge.nonce) else {
            throw IdentityError(.invalidField, "the challenge is not a bare nonce", field: "nonce")
        }
        return number
    }

    private func decode<Shape: Decodable>(_ shape: Shape.Type, _ request: Request, _ context: HubRequestContext) async throws -> Shape? {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        return try? context.requestDecoder.decode(Shape.self, from: Data(buffer.readableBytesView))
    }

    private func failure(_ status: HTTPResponse.Status, _ message: String, _ context: HubRequestContext) -> Response {
        (try? context.json(DataUnionShapes.Failure(message: message), status: status)) ?? Response(status: status)
    }
}
