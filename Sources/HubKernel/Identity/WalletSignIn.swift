/// Sign-in with a wallet: the hub issues a challenge, the wallet signs its message, the hub
/// checks the signature with the scheme's verifier and signs in the user linked to the address,
/// creating a member on first sign-in.
///
/// ```swift
/// let challenge = try await identity.wallets.challenge(scheme: "sr25519", address: address)
/// // the wallet signs challenge.message
/// let signedIn = try await identity.wallets.login(nonce: challenge.nonce, signature: signature)
/// ```
///
/// Challenges are single use and expire (five minutes by default). A wrong signature leaves the
/// challenge open (bad input changes nothing), a correct one consumes it even when a replay
/// races it: the second answer gets `challenge_used`.
public final class WalletSignIn: Sendable {
    /// Where rails register the schemes they verify.
    public let schemes: WalletSchemeRegistry
    let context: IdentityContext
    let tokens: TokenService
    let limits: SignInLimits

    /// Expired challenges older than this are deleted when new ones are issued.
    static let challengeRetention: Duration = .seconds(3600)

    init(context: IdentityContext, schemes: WalletSchemeRegistry, tokens: TokenService, limits: SignInLimits) {
        self.context = context
        self.schemes = schemes
        self.tokens = tokens
        self.limits = limits
    }

    /// Issues a challenge for `address` under `scheme`.
    /// - Throws: `unknown_scheme`, `invalid_address`.
    public func challenge(scheme: String, address: String) async throws -> WalletChallenge {
        let verifier = try schemes.require(scheme)
        let address = try Self.normalise(address, with: verifier)
        let now = context.now()
        let expiresAt = now.adding(context.configuration.challengeLifetime)
        let nonce = IdentityCrypto.hex(IdentityCrypto.randomBytes(16))
        let profile = verifier.signInProfile
        let message = SignInMessage(
            domain: context.configuration.domain,
            accountKind: profile.accountKind,
            address: address,
            statement: WalletChallenge.statement(hubName: context.configuration.hubName),
            uri: context.configuration.publicURI,
            chainID: profile.chainID,
            nonce: nonce,
            issuedAt: now,
            expirationTime: expiresAt
        ).text
        let purgeBefore = now.adding(.zero - Self.challengeRetention)
        try await context.database.write { connection in
            try connection.execute("DELETE FROM hub_wallet_challenges WHERE expires_at < \(purgeBefore)")
            try connection.execute(
                """
                INSERT INTO hub_wallet_challenges (nonce, scheme, address, message, created_at, expires_at) \
                VALUES (\(nonce), \(scheme), \(address), \(message), \(now), \(expiresAt))
                """
            )
        }
        return WalletChallenge(nonce: nonce, scheme: scheme, address: address, message: message, issuedAt: now.date, expiresAt: expiresAt.date)
    }

    /// Answers a challenge and signs in the user linked to its address, creating a member (with
    /// no email and no password) and the link on first use, which appends `identity.user.created`
    /// and `identity.wallet.linked`.
    ///
    /// The wallet signs either the challenge's own message or, as Sign-In with Ethereum clients
    /// do, a `message` of the client's making around the challenge's nonce: it must be an
    /// EIP-4361/CAIP-122 message (``SignInMessage``) naming the hub's domain, the challenge's
    /// address, the scheme's account kind and chain, and be valid now (`Not Before`,
    /// `Expiration Time`); the challenge's own expiry still applies.
    /// Failed signatures count against the wallet address and the client `address`
    /// (``SignInLimits``).
    /// - Parameter nonce: the challenge; may be omitted (`nil`) when `message` carries it.
    /// - Throws: `challenge_unknown`, `challenge_used`, `challenge_expired`, `unknown_scheme`,
    ///   `invalid_message`, `message_mismatch`, `invalid_signature`, `user_disabled`,
    ///   `too_many_attempts`.
    public func login(nonce: String?, signature: [UInt8], message: String? = nil, from address: String? = nil) async throws -> WalletSignedIn {
        let challenge = try await verifiedChallenge(nonce: nonce, signature: signature, message: message, from: address)
        let now = context.now()
        let (user, created) = try await context.database.write { connection -> (User, Bool) in
            try Self.consume(challenge, at: now, on: connection)
            if let linked = try Self.linkedUser(challenge.scheme, challenge.address, on: connection) {
                guard !linked.disabled else { throw IdentityError(.userDisabled, "this account is disabled") }
                return (linked, false)
            }
            let user = try UserStore.insert(
                email: nil,
                displayName: Self.displayName(scheme: challenge.scheme, address: challenge.address),
                roles: [.member],
                passwordHash: nil,
                createdBy: nil,
                via: "wallet",
                at: now,
                on: connection
            )
            try Self.insertLink(scheme: challenge.scheme, address: challenge.address, userID: user.id, at: now, on: connection)
            return (user, true)
        }
        return WalletSignedIn(user: user, tokens: try await tokens.issue(for: user), created: created)
    }

    /// Answers a challenge to link its address to an existing user (one signed in another way).
    /// Linking an address already linked to that user changes nothing.
    /// - Throws: the errors of ``login(nonce:signature:message:from:)``, `user_not_found`, and
    ///   `wallet_linked_elsewhere` when the address belongs to another user.
    @discardableResult
    public func link(nonce: String?, signature: [UInt8], message: String? = nil, to userID: UserID) async throws -> WalletLink {
        let challenge = try await verifiedChallenge(nonce: nonce, signature: signature, message: message, from: nil)
        let now = context.now()
        return try await context.database.write { connection in
            try Self.consume(challenge, at: now, on: connection)
            guard try UserStore.find(userID, lock: true, on: connection) != nil else {
                throw IdentityError(.userNotFound, "no user \(userID)")
            }
            if let existing = try Self.link(challenge.scheme, challenge.address, on: connection) {
                guard existing.userID == userID else {
                    throw IdentityError(.walletLinkedElsewhere, "this address is linked to another account", field: "address")
                }
                return existing
            }
            return try Self.insertLink(scheme: challenge.scheme, address: challenge.address, userID: userID, at: now, on: connection)
        }
    }

    /// The challenge `nonce` names while it can still be answered (not used, not expired), or nil:
    /// lets a caller check what a challenge is for (its scheme and address) before answering it
    /// with ``link(nonce:signature:message:to:)``. Read-only.
    public func openChallenge(nonce: String) async throws -> WalletChallenge? {
        let now = context.now()
        let found = try await context.database.read { try Self.challenge(nonce, on: $0) }
        guard let (challenge, used) = found, !used, now.date < challenge.expiresAt else { return nil }
        return challenge
    }

    /// The link of `address` (normalised by the scheme's verifier) to its user, if it has one.
    /// - Throws: `unknown_scheme`, `invalid_address`.
    public func link(scheme: String, address: String) async throws -> WalletLink? {
        let address = try Self.normalise(address, with: try schemes.require(scheme))
        return try await context.database.read { try Self.link(scheme, address, on: $0) }
    }

    /// The wallet addresses linked to `userID`, oldest first.
    public func links(for userID: UserID) async throws -> [WalletLink] {
        try await context.database.read { connection in
            try connection.query(Self.selectLinks + " WHERE user_id = \(userID) ORDER BY created_at, scheme, address").map(Self.link)
        }
    }

    // MARK: Steps

    /// Reads the challenge and checks it is open and the signature good, over the challenge's
    /// message or the client's own (checked against the challenge first). Read-only: a refused
    /// answer leaves the challenge as it was. ``consume(_:at:on:)`` re-checks under the write lock.
    /// A wrong signature counts as a failed sign-in of the challenge's wallet address.
    private func verifiedChallenge(nonce: String?, signature: [UInt8], message clientText: String?, from client: String?) async throws
        -> WalletChallenge
    {
        let now = context.now()
        let clientMessage = try clientText.map(Self.parseClientMessage)
        guard let nonce = nonce ?? clientMessage?.nonce else {
            throw IdentityError(.invalidField, "answer a challenge by its nonce, or send a sign-in message that names it", field: "nonce")
        }
        let found = try await context.database.read { try Self.challenge(nonce, on: $0) }
        guard let (challenge, used) = found else {
            throw IdentityError(.challengeUnknown, "unknown challenge; request a new one", field: "nonce")
        }
        guard !used else { throw IdentityError(.challengeUsed, "this challenge has already been answered", field: "nonce") }
        guard now.date < challenge.expiresAt else {
            throw IdentityError(.challengeExpired, "this challenge has expired; request a new one", field: "nonce")
        }
        let verifier = try schemes.require(challenge.scheme)
        if let clientMessage { try check(clientMessage, against: challenge, verifier: verifier, at: now) }
        let attempt = SignInLimits.Attempt(means: "wallet", account: "\(challenge.scheme):\(challenge.address)", address: client)
        try await limits.check(attempt)
        // Signature checks are CPU work of tens of microseconds, not blocking I/O: they run inline.
        let signed = Array((clientText ?? challenge.message).utf8)
        let valid = (try? verifier.verify(message: signed, signature: signature, address: challenge.address)) ?? false
        guard valid else {
            try await limits.recordFailure(attempt)
            throw IdentityError(.invalidSignature, "the signature does not match the message and address", field: "signature")
        }
        return challenge
    }

    static func parseClientMessage(_ text: String) throws -> SignInMessage {
        guard text.utf8.count <= 4096 else { throw IdentityError(.invalidMessage, "a sign-in message is at most 4096 bytes", field: "message") }
        do {
            return try SignInMessage.parse(text)
        } catch {
            throw IdentityError(.invalidMessage, "not an EIP-4361 sign-in message: \(error)", field: "message")
        }
    }

    /// A client's message must say what the hub's own would: the same domain, nonce, address,
    /// account kind and chain, and be valid now.
    private func check(_ message: SignInMessage, against challenge: WalletChallenge, verifier: any WalletSignatureVerifier, at now: LedgerTimestamp)
        throws
    {
        func mismatch(_ field: String, _ detail: String) -> IdentityError {
            IdentityError(.messageMismatch, detail, field: "message.\(field)")
        }
        let profile = verifier.signInProfile
        guard message.nonce == challenge.nonce else { throw mismatch("nonce", "the message names another challenge's nonce") }
        guard message.domain.lowercased() == context.configuration.domain.lowercased() else {
            throw mismatch("domain", "the message is for '\(message.domain.prefix(64))', not \(context.configuration.domain)")
        }
        guard message.accountKind == profile.accountKind else {
            throw mismatch("account", "the message signs in a '\(message.accountKind.prefix(32))' account, not \(profile.accountKind)")
        }
        guard (try? verifier.normalise(address: message.address)) == challenge.address else {
            throw mismatch("address", "the message names another address than the challenge")
        }
        guard message.chainID == profile.chainID else {
            throw mismatch("chain_id", "the message names chain \(message.chainID ?? "none"), not \(profile.chainID ?? "none")")
        }
        if let expiry = message.expirationTime, expiry <= now { throw mismatch("expiration_time", "the message has expired") }
        if let start = message.notBefore, start > now { throw mismatch("not_before", "the message is not valid yet") }
    }

    static func normalise(_ address: String, with verifier: any WalletSignatureVerifier) throws -> String {
        do {
            return try verifier.normalise(address: address)
        } catch let error as IdentityError {
            throw error
        } catch {
            throw IdentityError(.invalidAddress, "not a \(verifier.scheme) address: \(error)", field: "address")
        }
    }

    /// Marks the challenge used, refusing one used or expired meanwhile (a concurrent replay).
    static func consume(_ challenge: WalletChallenge, at now: LedgerTimestamp, on connection: any SQLConnection) throws {
        let changed = try connection.execute(
            "UPDATE hub_wallet_challenges SET used_at = \(now) WHERE nonce = \(challenge.nonce) AND used_at IS NULL AND expires_at > \(now)"
        )
        guard changed == 1 else {
            guard let (_, used) = try Self.challenge(challenge.nonce, on: connection), !used else {
                throw IdentityError(.challengeUsed, "this challenge has already been answered", field: "nonce")
            }
            throw IdentityError(.challengeExpired, "this challenge has expired; request a new one", field: "nonce")
        }
    }

    static func challenge(_ nonce: String, on connection: any SQLConnection) throws -> (WalletChallenge, used: Bool)? {
        guard
            let row = try connection.queryFirst(
                "SELECT nonce, scheme, address, message, created_at, expires_at, used_at FROM hub_wallet_challenges WHERE nonce = \(nonce)"
            )
        else { return nil }
        let challenge = WalletChallenge(
            nonce: try row.text("nonce"),
            scheme: try row.text("scheme"),
            address: try row.text("address"),
            message: try row.text("message"),
            issuedAt: try row.timestamp("created_at").date,
            expiresAt: try row.timestamp("expires_at").date
        )
        return (challenge, try row.optionalTimestamp("used_at") != nil)
    }

    static func link(_ scheme: String, _ address: String, on connection: any SQLConnection) throws -> WalletLink? {
        try connection.queryFirst(selectLinks + " WHERE scheme = \(scheme) AND address = \(address)").map(link)
    }

    static let selectLinks: SQL = "SELECT scheme, address, user_id, created_at FROM hub_wallet_links"

    static func link(_ row: SQLRow) throws -> WalletLink {
        WalletLink(
            scheme: try row.text("scheme"),
            address: try row.text("address"),
            userID: try row.decode("user_id"),
            createdAt: try row.timestamp("created_at").date
        )
    }

    static func linkedUser(_ scheme: String, _ address: String, on connection: any SQLConnection) throws -> User? {
        guard let link = try link(scheme, address, on: connection) else { return nil }
        return try UserStore.find(link.userID, on: connection)?.user
    }

    @discardableResult
    static func insertLink(scheme: String, address: String, userID: UserID, at now: LedgerTimestamp, on connection: any SQLConnection) throws
        -> WalletLink
    {
        let link = WalletLink(scheme: scheme, address: address, userID: userID, createdAt: now.date)
        try connection.execute(
            "INSERT INTO hub_wallet_links (scheme, address, user_id, created_at) VALUES (\(link.scheme), \(link.address), \(userID), \(now))"
        )
        try EventLog.append([IdentityEvents.walletLinked(link, at: now)], on: connection)
        return link
    }

    /// `sr25519 5Grwva…utQY`: enough of the address to recognise, short enough for a list.
    static func displayName(scheme: String, address: String) -> String {
        let short = address.count > 14 ? "\(address.prefix(6))…\(address.suffix(4))" : address
        return "\(scheme) \(short)"
    }
}
