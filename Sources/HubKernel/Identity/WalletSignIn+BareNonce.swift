extension WalletSignIn {
    /// The open bare-nonce challenge of `address`, or a new one: for clients of protocols whose
    /// wallets sign a number alone and whose sign-in names the address, not the challenge
    /// (DataUnion's `get-nonce` and `login`, which a rail can serve behind a compatibility switch).
    ///
    /// The challenge's nonce and message are the same decimal number, 9 to 13 digits as
    /// DataUnion's server draws them; it is single use and expires like any challenge, and an
    /// address keeps the same one until it is answered or expires, as DataUnion's does until a
    /// sign-in re-rolls it. Such a message names neither the hub nor a purpose, so a signature
    /// made for another site with the same number would sign in here: rails offer it only where
    /// a deployed client needs it, and off by default.
    /// - Throws: `unknown_scheme`, `invalid_address`.
    public func bareNonceChallenge(scheme: String, address: String) async throws -> WalletChallenge {
        let verifier = try schemes.require(scheme)
        let address = try Self.normalise(address, with: verifier)
        let now = context.now()
        if let open = try await openBareNonceChallenges(scheme: scheme, address: address, at: now).first {
            return open
        }
        let expiresAt = now.adding(context.configuration.challengeLifetime)
        // 43 bits: the nonce is not a secret (the signature is the proof), only unique among the
        // open challenges, which the primary key enforces.
        let nonce = String(UInt64.random(in: Self.bareNonceRange))
        try await context.database.write { connection in
            try connection.execute(
                """
                INSERT INTO hub_wallet_challenges (nonce, scheme, address, message, created_at, expires_at) \
                VALUES (\(nonce), \(scheme), \(address), \(nonce), \(now), \(expiresAt))
                """
            )
        }
        return WalletChallenge(nonce: nonce, scheme: scheme, address: address, message: nonce, issuedAt: now.date, expiresAt: expiresAt.date)
    }

    /// Signs in with a signature over the open bare-nonce challenge of `address`
    /// (``bareNonceChallenge(scheme:address:)``), as ``login(nonce:signature:message:from:)``
    /// does for a named challenge: the same limits, events and tokens.
    /// - Throws: `challenge_unknown` when the address has no open bare-nonce challenge, and the
    ///   errors of ``login(nonce:signature:message:from:)``.
    public func login(bareNonceOf address: String, scheme: String, signature: [UInt8], from client: String? = nil) async throws -> WalletSignedIn {
        let verifier = try schemes.require(scheme)
        let address = try Self.normalise(address, with: verifier)
        let open = try await openBareNonceChallenges(scheme: scheme, address: address, at: context.now())
        guard let newest = open.first else {
            throw IdentityError(.challengeUnknown, "this address has no open nonce; request one first", field: "public_address")
        }
        // Two requests for a nonce at once can each have issued one: answer the one signed. A
        // signature matching none goes to the newest, which counts and refuses it.
        let signed = open.first { (try? verifier.verify(message: Array($0.message.utf8), signature: signature, address: address)) == true }
        return try await login(nonce: (signed ?? newest).nonce, signature: signature, from: client)
    }

    /// The address's bare-nonce challenges still open, newest first. Bare ones are those whose
    /// message is their nonce; a sign-in message never is.
    private func openBareNonceChallenges(scheme: String, address: String, at now: LedgerTimestamp) async throws -> [WalletChallenge] {
        try await context.database.read { connection in
            try connection.query(
                """
                SELECT nonce FROM hub_wallet_challenges \
                WHERE scheme = \(scheme) AND address = \(address) AND message = nonce AND used_at IS NULL AND expires_at > \(now) \
                ORDER BY created_at DESC LIMIT 4
                """
            ).compactMap { row in try Self.challenge(try row.text("nonce"), on: connection)?.0 }
        }
    }

    /// DataUnion's range.
    static let bareNonceRange: ClosedRange<UInt64> = 100_000_000...9_999_999_999_999
}
