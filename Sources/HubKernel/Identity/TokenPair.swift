public import Foundation

/// What a successful sign-in hands the client: a short-lived access token for `Authorization:
/// Bearer`, and a refresh token that buys the next pair (once).
public struct TokenPair: Sendable, Hashable, Codable {
    /// A JWT (HS256) to send as `Authorization: Bearer …`.
    public var accessToken: String
    public var accessTokenExpiresAt: Date
    /// An opaque `hubr_…` token for ``TokenService/refresh(_:)``. Single use.
    public var refreshToken: String
    public var refreshTokenExpiresAt: Date
}

/// A signed-in user and their tokens.
public struct SignedIn: Sendable, Hashable {
    public var user: User
    public var tokens: TokenPair
}
