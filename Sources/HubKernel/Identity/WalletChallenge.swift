public import Foundation

/// A sign-in challenge: a single-use nonce and the message the wallet must sign.
public struct WalletChallenge: Sendable, Hashable, Codable {
    /// 32 hex digits; also the challenge's id when answering it.
    public var nonce: String
    /// The signature scheme, as registered by a rail.
    public var scheme: String
    /// The address as the scheme normalised it.
    public var address: String
    /// The text to sign, in the spirit of EIP-4361 (Sign-In with Ethereum): who asks, for which
    /// address, with which nonce, and until when. Shown to the user by the wallet.
    public var message: String
    public var issuedAt: Date
    /// After this the challenge can no longer be answered.
    public var expiresAt: Date

    /// The message, laid out as EIP-4361 lays out its own:
    ///
    /// ```text
    /// pay.example.org wants you to sign in with your sr25519 account:
    /// 5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY
    ///
    /// Sign in to Festival Hub. This proves you hold this address; it sends no transaction and costs nothing.
    ///
    /// Nonce: 9f86d081884c7d659a2feaa0c55ad015
    /// Issued At: 2026-11-21T09:30:00.000Z
    /// Expiration Time: 2026-11-21T09:35:00.000Z
    /// ```
    static func message(
        domain: String,
        hubName: String,
        scheme: String,
        address: String,
        nonce: String,
        issuedAt: LedgerTimestamp,
        expiresAt: LedgerTimestamp
    ) -> String {
        """
        \(domain) wants you to sign in with your \(scheme) account:
        \(address)

        Sign in to \(hubName). This proves you hold this address; it sends no transaction and costs nothing.

        Nonce: \(nonce)
        Issued At: \(issuedAt)
        Expiration Time: \(expiresAt)
        """
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
