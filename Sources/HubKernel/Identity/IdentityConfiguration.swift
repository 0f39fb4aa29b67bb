/// Settings of identity, with defaults for production.
public struct IdentityConfiguration: Sendable {
    /// How long an access token (JWT) is valid. Short, because it is checked without a database
    /// lookup of the token itself; refresh tokens carry the session.
    public var accessTokenLifetime: Duration = .seconds(15 * 60)
    /// How long a refresh token is valid. Each refresh issues a new one with a fresh lifetime.
    public var refreshTokenLifetime: Duration = .seconds(30 * 24 * 3600)
    /// The `iss` claim of access tokens, required on verification.
    public var issuer = "hubd"
    /// argon2id cost of new password hashes (see ``PasswordHasher/Parameters/interactive``).
    public var passwordParameters: PasswordHasher.Parameters = .interactive
    /// The length rule for new passwords.
    public var passwordPolicy = PasswordPolicy()
    /// The hub's name and the domain it is served from, written into wallet sign-in messages so
    /// that a user can see which site asks them to sign.
    public var hubName = "hubd"
    /// The authority clients reach the hub at (`pay.example.org`, `127.0.0.1:8080`): no scheme,
    /// no path. Sign-in messages name it, and a client's own message must name it too.
    public var domain = "localhost"
    /// The URL sign-in messages give as `URI` (EIP-4361): where the hub is served.
    public var publicURI = "http://localhost"
    /// How long a wallet challenge may be answered.
    public var challengeLifetime: Duration = .seconds(5 * 60)
    /// An API key's `last_used_at` is written at most this often, so a busy key does not turn
    /// every read into a write.
    public var apiKeyLastUsedResolution: Duration = .seconds(60)
    /// Limits on failed password and wallet sign-ins (``SignInLimits``).
    public var signInLimits = SignInLimits.Rules()

    public init() {}
}
