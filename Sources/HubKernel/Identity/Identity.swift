public import Logging
public import NIOPosix

/// The hub's people: users and roles, passwords, sessions (access and refresh tokens), API keys,
/// wallet sign-in and the first admin. Every change appends an event in its own transaction.
///
/// This is the API the HTTP layer, the CLI and plugins use; it knows nothing of HTTP. Errors are
/// ``IdentityError``s whose ``IdentityError/kind`` maps to a status.
///
/// ```swift
/// let identity = Identity(database: db, secrets: vault, logger: logger)
/// if let token = try await identity.users.bootstrapIfNoAdmin() { logger.notice("bootstrap token: \(token)") }
/// let signedIn = try await identity.users.login(email: "ann@example.org", password: password)
/// let caller = try await identity.authenticate(bearer: signedIn.tokens.accessToken)
/// ```
public final class Identity: Sendable {
    public let database: Database
    public let configuration: IdentityConfiguration
    /// The time every expiry is measured against.
    public let clock: LedgerClock
    /// argon2id hashing with ``IdentityConfiguration/passwordParameters``.
    public let passwords: PasswordHasher
    /// Users, password sign-in, the bootstrap token and the CLI admin.
    public let users: UserService
    /// Access tokens, refresh, logout.
    public let tokens: TokenService
    /// API keys.
    public let apiKeys: APIKeyService
    /// Wallet sign-in and the scheme registry rails fill.
    public let wallets: WalletSignIn
    /// The vault the JWT signing keys are kept in.
    public let secrets: SecretsVault
    /// Limits on failed sign-ins, shared by every instance on one database.
    public let signInLimits: SignInLimits

    /// - Parameters:
    ///   - database: a database with the kernel migrations applied (``Ledger/migrations``
    ///     includes identity's).
    ///   - clock: the time for expiry decisions; tests pass a manual clock.
    ///   - schemes: where rails register wallet signature schemes; rails may also reach it later
    ///     as `identity.wallets.schemes`.
    ///   - threadPool: where password hashing runs (never the cooperative pool).
    ///   - secrets: the vault the JWT signing keys are kept in (prepared before the first token).
    public init(
        database: Database,
        configuration: IdentityConfiguration = .init(),
        clock: LedgerClock = .system,
        schemes: WalletSchemeRegistry = .init(),
        threadPool: NIOThreadPool = .singleton,
        secrets: SecretsVault,
        logger: Logger
    ) {
        let context = IdentityContext(database: database, configuration: configuration, clock: clock, logger: logger, secrets: secrets)
        self.database = database
        self.configuration = configuration
        self.clock = clock
        self.secrets = secrets
        passwords = PasswordHasher(parameters: configuration.passwordParameters, threadPool: threadPool)
        tokens = TokenService(context: context)
        signInLimits = SignInLimits(context: context)
        users = UserService(context: context, passwords: passwords, tokens: tokens, limits: signInLimits)
        apiKeys = APIKeyService(context: context)
        wallets = WalletSignIn(context: context, schemes: schemes, tokens: tokens, limits: signInLimits)
    }

    /// The caller behind an `Authorization: Bearer` credential (without the `Bearer ` word): an
    /// API key when it starts with `hub_`, otherwise an access token.
    /// - Throws: the errors of ``APIKeyService/authenticate(_:)`` or ``TokenService/verify(accessToken:)``.
    public func authenticate(bearer credential: String) async throws -> Principal {
        if credential.hasPrefix(APIKeyService.prefix) {
            return try await apiKeys.authenticate(credential)
        }
        return try await tokens.verify(accessToken: credential)
    }
}
