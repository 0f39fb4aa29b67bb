/// Limits on failed sign-ins that tell guessing from a crowd.
///
/// Only failures count, never sign-ins: a festival's thousand attendees behind one Wi-Fi address
/// all get in, while someone guessing is slowed where guessing shows:
/// - one account from one address (a person guessing one password),
/// - one account from anywhere (guesses spread over many addresses),
/// - one address against any account (one machine trying many accounts).
///
/// Each is a counter of failures in a window. At its threshold the key waits ``Rules/firstWait``,
/// doubling with every failure after it up to ``Rules/longestWait``; a quiet window starts the
/// count again, and signing in clears the account's counters. A refused attempt is answered
/// before the password is hashed or the signature checked: a blocked guesser costs the hub nothing,
/// and an unknown account is limited exactly as a known one, so limits tell nothing of who has an
/// account. The counters live in the database (`hub_signin_failures`), so every instance on one
/// PostgreSQL applies the same limits.
public struct SignInLimits: Sendable {
    /// Thresholds and waits; ``IdentityConfiguration/signInLimits``.
    public struct Rules: Sendable {
        /// Failures of one account from one address before that pair waits.
        public var perAccountAndAddress = 5
        /// Failures of one account, from any address, before it waits.
        public var perAccount = 20
        /// Failures from one address, against any accounts, before it waits.
        public var perAddress = 100
        /// How long a counter remembers failures after its first one.
        public var window: Duration = .seconds(15 * 60)
        public var firstWait: Duration = .seconds(30)
        public var longestWait: Duration = .seconds(15 * 60)

        public init() {}

        /// How long a key that failed `failures` times in its window, the last at `lastFailure`,
        /// must wait after `now`; `nil` when it may try.
        func wait(failures: Int64, threshold: Int, lastFailure: LedgerTimestamp, now: LedgerTimestamp) -> Duration? {
            guard failures >= Int64(threshold) else { return nil }
            let doublings = min(Int64(20), failures - Int64(threshold))
            let wait = min(longestWait, firstWait * Int(1 << doublings))
            let until = lastFailure.nanoseconds &+ wait.nanoseconds
            guard until > now.nanoseconds else { return nil }
            return .nanoseconds(Int64(until - now.nanoseconds))
        }
    }

    /// One sign-in attempt: by which means (`password`, `wallet`), for which account (a
    /// normalised email, a wallet address) and from which client address.
    public struct Attempt: Sendable {
        public var means: String
        public var account: String
        public var address: String

        public init(means: String, account: String, address: String?) {
            self.means = means
            self.account = account
            self.address = address ?? "local"
        }

        var pairKey: String { "\(means)|account|\(account)|from|\(address)" }
        var accountKey: String { "\(means)|account|\(account)" }
        var addressKey: String { "\(means)|address|\(address)" }
    }

    let context: IdentityContext
    var rules: Rules { context.configuration.signInLimits }

    /// Throws `too_many_attempts`, with how long to wait, when any of the attempt's counters is at
    /// its limit. Returns whether the attempt's account has failures on record (only then does a
    /// sign-in need ``recordSuccess(_:)``).
    @discardableResult
    public func check(_ attempt: Attempt) async throws -> Bool {
        let now = context.now()
        let keys = [(attempt.pairKey, rules.perAccountAndAddress), (attempt.accountKey, rules.perAccount), (attempt.addressKey, rules.perAddress)]
        let rows = try await context.database.read { connection in
            try connection.query(
                "SELECT key, failures, window_started_at, last_failure_at FROM hub_signin_failures WHERE key IN (\(list: keys.map(\.0)))"
            )
        }
        var longest: Duration?
        for row in rows {
            let (key, failures, windowStart, lastFailure) = try row.decode(String.self, Int64.self, LedgerTimestamp.self, LedgerTimestamp.self)
            guard windowStart.nanoseconds &+ rules.window.nanoseconds > now.nanoseconds,
                let threshold = keys.first(where: { $0.0 == key })?.1,
                let wait = rules.wait(failures: failures, threshold: threshold, lastFailure: lastFailure, now: now)
            else { continue }
            longest = max(longest ?? wait, wait)
        }
        if let longest { throw IdentityError.tooManyAttempts(retryAfter: longest) }
        return rows.contains { (try? $0.text("key")) != attempt.addressKey }
    }

    /// Counts a failed attempt on each of its counters.
    public func recordFailure(_ attempt: Attempt) async throws {
        let now = context.now()
        let windowStart = LedgerTimestamp(nanoseconds: now.nanoseconds &- min(now.nanoseconds, rules.window.nanoseconds))
        try await context.database.write { connection in
            for key in [attempt.pairKey, attempt.accountKey, attempt.addressKey] {
                // A counter whose window has passed starts again at one.
                try connection.executeDeferred(
                    """
                    INSERT INTO hub_signin_failures (key, failures, window_started_at, last_failure_at) VALUES (\(key), 1, \(now), \(now)) \
                    ON CONFLICT (key) DO UPDATE SET \
                    failures = CASE WHEN hub_signin_failures.window_started_at <= \(windowStart) THEN 1 ELSE hub_signin_failures.failures + 1 END, \
                    window_started_at = CASE WHEN hub_signin_failures.window_started_at <= \(windowStart) THEN \(now) \
                    ELSE hub_signin_failures.window_started_at END, \
                    last_failure_at = \(now)
                    """
                )
            }
        }
    }

    /// After a sign-in: the account's counters start again (the address's stay: one success does
    /// not excuse an address's failures against other accounts).
    public func recordSuccess(_ attempt: Attempt) async throws {
        try await context.database.write { connection in
            try connection.execute("DELETE FROM hub_signin_failures WHERE key IN (\(list: [attempt.pairKey, attempt.accountKey]))")
        }
    }

    /// Forgets counters that no longer limit anything (identity maintenance).
    static func purge(before cutoff: LedgerTimestamp, on connection: any SQLConnection) throws -> Int {
        try connection.execute("DELETE FROM hub_signin_failures WHERE last_failure_at < \(cutoff)")
    }

    /// The migration of the counters' table.
    static let migration = Migration(
        "010_signin_failures",
        portable: """
            CREATE TABLE hub_signin_failures (
                key TEXT PRIMARY KEY,
                failures {bigint} NOT NULL,
                window_started_at {bigint} NOT NULL,
                last_failure_at {bigint} NOT NULL
            );
            """
    )
}
