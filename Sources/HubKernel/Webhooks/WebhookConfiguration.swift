/// Settings of webhook delivery, with defaults for production.
public struct WebhookConfiguration: Sendable {
    /// The waits before each retry of a failed event: after the first attempt fails the next
    /// comes `retrySchedule[0]` later, and so on. When the attempt after the last wait fails too,
    /// the event is given up on and the endpoint moves on. The default backs off exponentially
    /// over about 32 hours, so a receiver that is down for a day still gets everything.
    public var retrySchedule: [Duration] = [
        .seconds(5), .seconds(30), .seconds(120), .seconds(600), .seconds(1800),
        .seconds(3600), .seconds(7200), .seconds(14_400), .seconds(28_800), .seconds(28_800), .seconds(28_800),
    ]
    /// Each wait is stretched by up to this fraction at random, so endpoints that failed together
    /// (one receiver outage) are not all retried in the same instant.
    public var retryJitter: Double = 0.1
    /// One attempt's limit, connecting included. The scheme suggests receivers answer quickly and
    /// do the work afterwards.
    public var requestTimeout: Duration = .seconds(10)
    /// How often the log is checked for events written by other processes, and how late a due
    /// retry can be at worst. Events appended here are picked up at once through
    /// ``WebhookDispatcher/nudge()``.
    public var pollInterval: Duration = .milliseconds(500)
    /// Endpoints worked at the same time. Each waits on its own receiver, so a slow one holds one
    /// slot and the others go on.
    public var maxConcurrentEndpoints = 8
    /// Events an endpoint is sent in one turn before others get a slot (it carries on next turn).
    public var eventsPerTurn = 100
    /// Which addresses may receive webhooks: public ones only, unless listed (SSRF).
    public var addressPolicy = WebhookAddressPolicy()

    public init() {}

    /// All the retry waits added up: how long a receiver can be down and still get every event.
    public var totalRetryWindow: Duration { retrySchedule.reduce(.zero, +) }
}

/// Where the webhook engine reads the time and how it waits. Tests can speed up or record waits;
/// the retry schedule itself is a ``WebhookConfiguration`` setting.
public struct WebhookClock: Sendable {
    /// Wall-clock time: attempt timestamps and when retries are due.
    public var now: @Sendable () -> LedgerTimestamp
    /// Waits for a duration (and throws when the task is cancelled).
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(now: @escaping @Sendable () -> LedgerTimestamp, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The system's real-time clock and `Task.sleep`.
    public static let system = WebhookClock(now: LedgerClock.system.now, sleep: { try await Task.sleep(for: $0) })
}

/// What happens after a failed attempt: a pure function of the schedule, tested without IO.
struct WebhookRetryPolicy: Sendable, Equatable {
    enum Decision: Equatable {
        /// Try the same event again at this time.
        case retry(at: LedgerTimestamp)
        /// The schedule is exhausted: record the event as given up and move on.
        case giveUp
    }

    let schedule: [Duration]
    let jitter: Double

    /// - Parameters:
    ///   - failedAttempts: attempts at this event that have failed, the one just made included.
    ///   - now: when it failed.
    ///   - random: a number in `0..<1` that picks the jitter.
    func afterFailure(failedAttempts: Int, now: LedgerTimestamp, random: Double) -> Decision {
        guard failedAttempts >= 1, failedAttempts <= schedule.count else { return .giveUp }
        let wait = schedule[failedAttempts - 1]
        let nanoseconds = Double(wait.components.seconds) * 1e9 + Double(wait.components.attoseconds) / 1e9
        let stretched = UInt64(max(0, nanoseconds * (1 + max(0, jitter) * random)))
        return .retry(at: LedgerTimestamp(nanoseconds: now.nanoseconds &+ stretched))
    }
}
