/// The authenticated caller of a request: who they are, what roles they hold now, and how they
/// proved it. Built by ``Identity/authenticate(bearer:)`` and its parts; the HTTP layer asks it
/// questions before doing anything.
///
/// ```swift
/// let caller = try await identity.authenticate(bearer: token)
/// guard caller.allows(scope: .usersWrite) else { throw IdentityError(.forbidden, "…") }
/// ```
public struct Principal: Sendable, Hashable {
    /// How the caller authenticated.
    public enum Credential: Sendable, Hashable {
        /// A JWT access token; `tokenID` is its `jti` claim.
        case accessToken(tokenID: String)
        /// An API key.
        case apiKey(APIKeyID)
    }

    /// The user the caller acts as.
    public let userID: UserID
    /// The user's roles as stored when the request was authenticated (not as they were when a
    /// token was issued), so a demotion takes effect at once.
    public let roles: Set<Role>
    /// How the caller proved who they are.
    public let credential: Credential
    /// The scopes an API key carries; `nil` for access tokens, which may use every scope the
    /// user's roles allow.
    public let scopes: Set<APIScope>?
    /// The user's display name as stored when the request was authenticated: read with the roles,
    /// so a handler that shows who is acting (a payee's name on a session) reads nothing more.
    /// `nil` for a principal made without the user's record.
    public let displayName: String?

    public init(userID: UserID, roles: Set<Role>, credential: Credential, scopes: Set<APIScope>?, displayName: String? = nil) {
        self.userID = userID
        self.roles = roles
        self.credential = credential
        self.scopes = scopes
        self.displayName = displayName
    }

    /// Whether the caller's user holds the admin role. What the caller may *use* that for is
    /// decided by the scope each endpoint requires (``allows(scope:)``): an admin's key with only
    /// `events:read` reads the event log as an admin and does nothing else. Scopes grant what they
    /// name; the `admin` scope grants every scope the user's roles permit.
    public var isAdmin: Bool { roles.contains(.admin) }

    /// Whether the user holds `role`. Roles are not ranked: an admin does not "have" organiser.
    public func has(_ role: Role) -> Bool { roles.contains(role) }

    /// Whether the caller may use an endpoint that needs `scope`: the user's roles must permit the
    /// scope, and an API key must carry it (or carry `admin`).
    public func allows(scope: APIScope) -> Bool {
        guard scope.isPermitted(for: roles) else { return false }
        guard let scopes else { return true }
        return scopes.contains(scope) || scopes.contains(.admin)
    }

    /// Throws `forbidden` unless ``allows(scope:)``.
    public func require(scope: APIScope) throws {
        guard allows(scope: scope) else {
            throw IdentityError(.forbidden, "this request needs the '\(scope)' scope, which the caller does not have")
        }
    }
}
