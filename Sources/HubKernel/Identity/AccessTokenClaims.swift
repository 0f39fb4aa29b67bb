import Foundation
import JWTKit

/// The claims of an access token. `roles` is informational (clients show it); verification reads
/// the user's current roles from the database instead.
struct AccessTokenClaims: JWTPayload {
    var sub: SubjectClaim
    var roles: [String]
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    var jti: IDClaim
    var iss: IssuerClaim
    /// The session (refresh-token family) the token belongs to: ending the session (logout, a
    /// reused refresh token, sign-out everywhere, the user disabled) refuses its access tokens too.
    var sid: String

    /// Checks the shape only. Expiry is checked by ``TokenService`` against its injected clock,
    /// which jwt-kit's own check (the system time) cannot see.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
