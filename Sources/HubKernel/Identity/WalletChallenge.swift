public import Foundation

/// A sign-in challenge: a single-use nonce and the message the wallet must sign.
public struct WalletChallenge: Sendable, Hashable, Codable {
    /// 32 hex digits; also the challenge's id when answering it.
    public var nonce: String
    /// The signature scheme, as registered by a rail.
    public var scheme: String
    /// The address as the scheme normalised it.
    public var address: String
    /// The text to sign, an EIP-4361 (Sign-In with Ethereum) message as ``SignInMessage`` lays it
    /// out: who asks, for which address and chain, with which nonce, and until when. Shown to the
    /// user by the wallet. A client may instead sign a message of its own making with the same
    /// domain, address, chain and nonce (``WalletSignIn/login(nonce:signature:message:from:)``).
    public var message: String
    public var issuedAt: Date
    /// After this the challenge can no longer be answered.
    public var expiresAt: Date

    /// The statement of the hub's messages.
    static func statement(hubName: String) -> String {
        "Sign in to \(hubName). This proves you hold this address; it sends no transaction and costs nothing."
    }
}

/// A wallet address linked to a user.
public struct WalletLink: Sendable, Hashable, Codable {
    public var scheme: String
    public var address: String
    public var userID: UserID
    public var createdAt: Date
}

/// A wallet sign-in: the user, their tokens, and whether this sign-in created the user.
public struct WalletSignedIn: Sendable, Hashable {
    public var user: User
    public var tokens: TokenPair
    public var created: Bool
}
