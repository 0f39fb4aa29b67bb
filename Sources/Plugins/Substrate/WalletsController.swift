import ChainKit
import HubKernel
import Hummingbird

/// `/v1/rails/substrate/wallets…`: the caller's Substrate wallets.
///
/// - `POST wallets` `{"kind": "custodial"}`: a new sr25519 wallet; 201 with its address, public
///   key and, this once, its 12-word mnemonic (`Cache-Control: no-store`).
/// - `POST wallets` `{"kind": "external", "address", "nonce", "signature"}`: an address the caller
///   holds, proven by signing a kernel challenge (`POST /v1/auth/wallet/challenge` with scheme
///   `sr25519` or `ed25519`); the kernel links it to the caller (so they can sign in with it) and
///   the rail records it. 201, or 200 for one already theirs; 409 `wallet_taken` for another's.
/// - `GET wallets`, `GET wallets/{address}` (any prefix, or the 0x public key).
struct WalletsController: Sendable {
    let wallets: SubstrateWallets
    let identity: Identity

    func addRoutes(to group: RouterGroup<HubRequestContext>) {
        group.post("wallets", use: create)
        group.get("wallets", use: list)
        group.get("wallets/{address}", use: show)
    }

    struct CreateRequest: Decodable {
        var kind: SubstrateWallet.Kind
        var address: String?
        var nonce: String?
        var signature: String?
    }

    @Sendable func create(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerWrite)
        var request = request
        let body = try await request.decodeJSON(as: CreateRequest.self, context: context)
        switch body.kind {
        case .custodial:
            for (name, value) in [("address", body.address), ("nonce", body.nonce), ("signature", body.signature)] where value != nil {
                throw SubstrateError.invalid(name, "A custodial wallet is made by the hub: send only {\"kind\": \"custodial\"}.")
            }
            return try await wallets.createCustodial(for: principal.userID).response()
        case .external:
            return try await registerExternal(body, user: principal.userID).response()
        }
    }

    /// Checks the challenge is for this address under a Substrate scheme and the key is nobody
    /// else's before the kernel consumes it, so a refusal leaves the challenge open. A challenge
    /// that is not open (unknown, used, expired) goes to the kernel, which says which.
    private func registerExternal(_ body: CreateRequest, user: UserID) async throws -> HTTPReply {
        guard let address = body.address else { throw SubstrateError.invalid("address", "An external wallet names its address.") }
        guard let nonce = body.nonce else {
            throw SubstrateError.invalid("nonce", "Sign a challenge from POST /v1/auth/wallet/challenge and send its nonce.")
        }
        guard let signatureText = body.signature, let signature = HexText.decode(signatureText), !signature.isEmpty else {
            throw SubstrateError.invalid("signature", "The signature is hex, with or without 0x.")
        }
        let publicKey = try SubstrateSignatureVerifier.publicKey(address)
        if let challenge = try await identity.wallets.openChallenge(nonce: nonce) {
            guard SubstrateSignatureVerifier.Algorithm(rawValue: challenge.scheme) != nil else {
                throw SubstrateError.invalid("nonce", "The challenge is for scheme \(challenge.scheme); ask one for sr25519 or ed25519.")
            }
            guard (try? SubstrateSignatureVerifier.publicKey(challenge.address)) == publicKey else {
                throw SubstrateError(
                    kind: .invalidField,
                    errorCode: "address_mismatch",
                    message: "The challenge was issued for another address.",
                    field: "address"
                )
            }
        }
        if let existing = try await wallets.wallet(publicKey), existing.userID != user {
            throw SubstrateError.walletTaken(try SS58.encode(publicKey, prefix: wallets.ss58Prefix))
        }
        // The kernel's link and the rail's row are two transactions (a rail cannot write the
        // kernel's tables in its unit). Between the check above and the insert, another user can
        // only take this key by holding it too and racing; then the caller keeps a proven kernel
        // link and gets 409 here, and nothing of the rail changes.
        let link = try await identity.wallets.link(nonce: nonce, signature: signature, to: user)
        return try await wallets.registerExternal(publicKey: publicKey, scheme: link.scheme, for: user)
    }

    @Sendable func list(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let prefix = wallets.ss58Prefix
        let shown = try await wallets.wallets(of: principal.userID).map { try WalletRepresentation($0, prefix: prefix) }
        return try context.json(["data": shown])
    }

    /// One of the caller's wallets; another's answers 404 like a missing one.
    @Sendable func show(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        let address = try context.parameters.require("address")
        let publicKey = try SubstrateSignatureVerifier.publicKey(address)
        guard let wallet = try await wallets.wallet(publicKey), wallet.userID == principal.userID else {
            throw SubstrateError.walletNotFound(address)
        }
        return try context.json(try WalletRepresentation(wallet, prefix: wallets.ss58Prefix))
    }
}
