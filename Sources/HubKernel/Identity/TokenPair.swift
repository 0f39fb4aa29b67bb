public import Foundation

/// What a successful sign-in hands the client: a short-lived access token for `Authorization:
/// Bearer`, and a refresh token that buys the next pair (once).
public struct TokenPair: Sendable, Hashable, Codable {
    /// A JWT (HS256) to send as `Authorization: Bearer …`.
    public var accessToken: String
    /// When the access token stops being accepted (whole seconds, as in its `exp` claim).
    public var accessTokenExpiresAt: Date
    /// An opaque `hubr_…` token for ``TokenService/refresh(_:)``. Single use.
    public var refreshToken: String
    /// When the refresh token stops being accepted.
    public var refreshTokenExpiresAt: Date
}

/// A signed-in user and their tokens.
public struct SignedIn: Sendable, Hashable {
    /// Who signed in (current roles).
    public var user: User
    /// Their new session.
    public var tokens: TokenPair
}
