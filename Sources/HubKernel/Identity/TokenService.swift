import Foundation
import JWTKit
import Logging
import Synchronization

/// Access and refresh tokens.
///
/// - Access tokens are JWTs signed with HS256 under keys kept sealed in the secrets vault
///   (``JWTKeySet``, made on first use), so tokens survive restarts and are valid on every process
///   sharing the database. The header's `kid` names the key; ``rotateSigningKey()`` makes a new
///   current key while the previous one verifies until every token it signed has expired. A
///   token whose `kid` no key has is refused. Claims: `sub` (user id), `roles`, `iat`, `exp`,
///   `jti`, `iss`.
/// - Refresh tokens are opaque `hubr_…` strings, stored as SHA-256. They rotate: each use marks
///   the token used and issues a new pair in the same *family*. A used token presented again
///   means one of two holders is not the user, so the whole family is revoked (reuse detection,
///   as in the OAuth 2.0 security BCP) and the call fails with `refresh_reused`. Two concurrent
///   refreshes with one token therefore succeed once and then end the session.
public final class TokenService: Sendable {
    static let refreshPrefix = "hubr_"

    let context: IdentityContext
    /// The signing keys as last loaded (see TokenService+Keys).
    let signer = Mutex<LoadedKeys?>(nil)

    init(context: IdentityContext) {
        self.context = context
    }

    // MARK: Issuing

    /// Starts a new session for `user`: a new refresh-token family and an access token.
    /// For sign-in paths (password, wallet, bootstrap, a dev login); callers check the credentials.
    /// The user is re-read in the same transaction, so the roles are current and a user disabled
    /// meanwhile gets no session.
    /// - Throws: `user_not_found`, `user_disabled`.
    public func issue(for user: User) async throws -> TokenPair {
        let now = context.now()
        let refresh = OpaqueToken.generate(prefix: Self.refreshPrefix)
        let expiresAt = now.adding(context.configuration.refreshTokenLifetime)
        let family = IdentityCrypto.uuid()
        let current = try await context.database.write { connection -> User in
            guard let current = try UserStore.find(user.id, on: connection)?.user else {
                throw IdentityError(.userNotFound, "no user \(user.id)")
            }
            guard !current.disabled else { throw IdentityError(.userDisabled, "this account is disabled") }
            try Self.insertRefresh(refresh, family: family, userID: user.id, now: now, expiresAt: expiresAt, on: connection)
            return current
        }
        return try await pair(for: current, session: family, refresh: refresh, refreshExpiresAt: expiresAt, now: now)
    }

    func pair(for user: User, session: String, refresh: OpaqueToken, refreshExpiresAt: LedgerTimestamp, now: LedgerTimestamp) async throws
        -> TokenPair
    {
        let issuedAt = now.wholeSeconds
        let expires = issuedAt.addingTimeInterval(Self.seconds(context.configuration.accessTokenLifetime))
        let claims = AccessTokenClaims(
            sub: SubjectClaim(value: user.id.description),
            roles: user.roles.sorted().map(\.rawValue),
            iat: IssuedAtClaim(value: issuedAt),
            exp: ExpirationClaim(value: expires),
            jti: IDClaim(value: IdentityCrypto.base64URL(IdentityCrypto.randomBytes(16))),
            iss: IssuerClaim(value: context.configuration.issuer),
            sid: session
        )
        let keys = try await signingKeys()
        let current = keys.set.current
        // Every key of the set gets a collection when it is loaded; a miss is a broken invariant.
        guard let collection = keys.collections[current.kid] else { throw SecretsError(.notReady, "the current JWT signing key is not loaded") }
        let token = try await collection.sign(claims, kid: JWKIdentifier(string: current.kid))
        return TokenPair(
            accessToken: token,
            accessTokenExpiresAt: expires,
            refreshToken: refresh.plaintext,
            refreshTokenExpiresAt: refreshExpiresAt.date
        )
    }

    static func insertRefresh(
        _ token: OpaqueToken,
        family: String,
        userID: UserID,
        now: LedgerTimestamp,
        expiresAt: LedgerTimestamp,
        id: String = IdentityCrypto.uuid(),
        on connection: any SQLConnection
    ) throws {
        try connection.execute(
            """
            INSERT INTO hub_refresh_tokens (id, user_id, family_id, token_hash, created_at, expires_at) \
            VALUES (\(id), \(userID), \(family), \(token.hash), \(now), \(expiresAt))
            """
        )
    }

    // MARK: Verifying

    /// The caller behind an access token.
    /// - Throws: `token_invalid` (malformed, bad signature, wrong issuer, unknown user),
    ///   `token_expired`, `token_revoked` (its session ended), `user_disabled`.
    public func verify(accessToken: String) async throws -> Principal {
        // Loaded outside the `do`, so a database failure is reported as one, not as a bad token.
        let keys = try await verifyingKeys(for: accessToken)
        let claims: AccessTokenClaims
        do {
            claims = try await keys.verify(accessToken, as: AccessTokenClaims.self)
        } catch {
            throw IdentityError(.tokenInvalid, "the access token is not one this hub signed")
        }
        guard claims.iss.value == context.configuration.issuer, let userID = UserID(claims.sub.value) else {
            throw IdentityError(.tokenInvalid, "the access token is not one this hub signed")
        }
        guard context.now().date < claims.exp.value else {
            throw IdentityError(.tokenExpired, "the access token has expired; refresh it")
        }
        // One read for both: the user as they are now, and whether the token's session is alive
        // (some refresh token of its family not revoked: rotation keeps a family alive, logout and
        // reuse detection revoke all of it).
        let session = claims.sid
        let (row, live) = try await context.database.read { connection in
            (
                try UserStore.find(userID, on: connection),
                try connection.queryFirst("SELECT 1 FROM hub_refresh_tokens WHERE family_id = \(session) AND revoked_at IS NULL LIMIT 1") != nil
            )
        }
        guard let user = row?.user else { throw IdentityError(.tokenInvalid, "the access token's user no longer exists") }
        guard !user.disabled else { throw IdentityError(.userDisabled, "this account is disabled") }
        guard live else { throw IdentityError(.tokenRevoked, "this session has ended; sign in again") }
        return Principal(
            userID: user.id,
            roles: user.roles,
            credential: .accessToken(tokenID: claims.jti.value),
            scopes: nil,
            displayName: user.displayName
        )
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
