/// Why identity refused a request. `code` is stable and machine-readable (clients match on it);
/// `message` is for people; `field` names the input at fault where there is one; `kind` says what
/// sort of failure it is, so the HTTP layer can choose a status without knowing every code.
///
/// ```swift
/// do { _ = try await identity.users.login(email: email, password: password) }
/// catch let error as IdentityError where error.code == .invalidCredentials { … }
/// ```
public struct IdentityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure, independent of transport. The HTTP layer maps it: `unauthenticated`
    /// → 401, `forbidden` → 403, `notFound` → 404, `conflict` → 409, `invalid` → 422.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ raw: String) { rawValue = raw }
        public var description: String { rawValue }

        /// The caller's credentials are missing, wrong, expired or revoked.
        public static let unauthenticated = Kind("unauthenticated")
        /// The caller is known but may not do this.
        public static let forbidden = Kind("forbidden")
        /// The thing named does not exist (or the caller may not know that it does).
        public static let notFound = Kind("not_found")
        /// The request clashes with the current state (a taken email, a used one-time token).
        public static let conflict = Kind("conflict")
        /// The input is malformed or breaks a rule (a weak password, an unknown scope).
        public static let invalid = Kind("invalid")
        /// Too many failed attempts: wait ``IdentityError/retryAfter``.
        public static let rateLimited = Kind("rate_limited")
    }

    /// A stable error code. Each code belongs to one ``Kind``.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        /// The class of failure this code always has.
        public let kind: Kind
        private init(_ raw: String, _ kind: Kind) {
            rawValue = raw
            self.kind = kind
        }
        public var description: String { rawValue }

        // Input
        public static let invalidEmail = Code("invalid_email", .invalid)
        public static let weakPassword = Code("weak_password", .invalid)
        public static let invalidField = Code("invalid_field", .invalid)
        public static let unknownRole = Code("unknown_role", .invalid)
        public static let unknownScope = Code("unknown_scope", .invalid)
        public static let unknownScheme = Code("unknown_scheme", .invalid)
        public static let invalidAddress = Code("invalid_address", .invalid)
        public static let invalidMessage = Code("invalid_message", .invalid)
        public static let messageMismatch = Code("message_mismatch", .invalid)

        // State
        public static let emailTaken = Code("email_taken", .conflict)
        public static let lastAdmin = Code("last_admin", .conflict)
        public static let walletLinkedElsewhere = Code("wallet_linked_elsewhere", .conflict)
        public static let bootstrapUsed = Code("bootstrap_used", .conflict)
        public static let bootstrapClosed = Code("bootstrap_closed", .conflict)

        // Permission
        public static let forbidden = Code("forbidden", .forbidden)
        public static let scopeNotAllowed = Code("scope_not_allowed", .forbidden)

        // Existence
        public static let userNotFound = Code("user_not_found", .notFound)
        public static let apiKeyNotFound = Code("api_key_not_found", .notFound)

        // Credentials
        public static let invalidCredentials = Code("invalid_credentials", .unauthenticated)
        public static let userDisabled = Code("user_disabled", .unauthenticated)
        public static let tokenInvalid = Code("token_invalid", .unauthenticated)
        public static let tokenExpired = Code("token_expired", .unauthenticated)
        public static let tokenRevoked = Code("token_revoked", .unauthenticated)
        public static let refreshReused = Code("refresh_reused", .unauthenticated)
        public static let apiKeyInvalid = Code("api_key_invalid", .unauthenticated)
        public static let apiKeyRevoked = Code("api_key_revoked", .unauthenticated)
        public static let bootstrapInvalid = Code("bootstrap_invalid", .unauthenticated)
        public static let challengeUnknown = Code("challenge_unknown", .unauthenticated)
        public static let challengeExpired = Code("challenge_expired", .unauthenticated)
        public static let challengeUsed = Code("challenge_used", .unauthenticated)
        public static let invalidSignature = Code("invalid_signature", .unauthenticated)

        // Limits
        public static let tooManyAttempts = Code("too_many_attempts", .rateLimited)
    }

    /// What went wrong, for programs.
    public var code: Code
    /// What went wrong, for people. Never contains a secret.
    public var message: String
    /// The input field at fault (`email`, `password`, `scopes`, …), if one is.
    public var field: String?
    /// How long to wait before trying again (`too_many_attempts`).
    public var retryAfter: Duration?

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    /// Failed sign-ins reached a limit (``SignInLimits``): try again after `wait`.
    static func tooManyAttempts(retryAfter wait: Duration) -> IdentityError {
        let seconds = max(1, wait.components.seconds + (wait.components.attoseconds > 0 ? 1 : 0))
        var error = IdentityError(.tooManyAttempts, "too many failed sign-ins; try again in \(seconds) s")
        error.retryAfter = wait
        return error
    }

    public var description: String {
        field.map { "\(code) (\($0)): \(message)" } ?? "\(code): \(message)"
    }

    /// Errors compare by code and field, so tests can write `#expect(throws: IdentityError(.x, ""))`
    /// without repeating the wording.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.field == rhs.field }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(field)
    }
}
