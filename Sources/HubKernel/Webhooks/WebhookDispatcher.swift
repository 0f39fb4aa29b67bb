public import Logging
public import Metrics
public import ServiceLifecycle
import Synchronization

/// Delivers the event log to every enabled endpoint, in order per endpoint, with retries.
///
/// Each endpoint has a cursor: the last event sequence it has handled. The dispatcher sends the
/// next event after the cursor that the endpoint's filter matches (events it does not match move
/// the cursor without a request). A 2xx answer moves the cursor on. Anything else is recorded and
/// retried after the next wait in ``WebhookConfiguration/retrySchedule``; later events wait behind
/// it, so a receiver sees events in log order. When the schedule is exhausted the event is
/// recorded as given up (``WebhookDelivery/gaveUp``, ``WebhookEndpointStatus/failedPermanently``)
/// and the endpoint moves on. Every attempt is recorded; an event can be sent again by hand with
/// ``WebhookStore/redeliver(endpointID:eventSequence:)``.
///
/// Endpoints are independent: each is worked by its own child task, up to
/// ``WebhookConfiguration/maxConcurrentEndpoints`` at once, so a slow or dead receiver holds only
/// its own slot. Delivery is at least once: a crash between a receiver's 2xx and the record
/// sends that event again, with the same `webhook-id`, for the receiver to drop.
///
/// Several hub processes may run a dispatcher on one database: an endpoint is leased to one of
/// them at a time (the lease outlives a crashed holder by at most `2 × requestTimeout + 30 s`).
///
/// ```swift
/// let dispatcher = WebhookDispatcher(database: db, client: CurlWebhookClient(), logger: logger)
/// // run it in the application's ServiceGroup; after appending events:
/// dispatcher.nudge()
/// ```
public final class WebhookDispatcher: Service {
    let database: Database
    /// Where the endpoints' signing secrets are kept (``WebhookSecrets``).
    let secrets: SecretsVault
    let configuration: WebhookConfiguration
    let clock: WebhookClock
    let attempter: WebhookAttempter
    let policy: WebhookRetryPolicy
    let logger: Logger
    /// This dispatcher's name in endpoint leases.
    let owner = WebhookEndpointID.random().description
    let leaseDuration: Duration
    let wakeup = WebhookWakeup()
    private let stopping = Atomic<Bool>(false)
    private let rotation = Atomic<Int>(0)
    /// Endpoints a child task is working on now.
    private let inFlight = Mutex<Set<WebhookEndpointID>>([])

    /// - Parameters:
    ///   - database: a database migrated with the kernel's migrations.
    ///   - secrets: the prepared vault the signing secrets are sealed in.
    ///   - client: sends the requests (``CurlWebhookClient`` in production).
    ///   - configuration: retry schedule, timeouts, polling and concurrency.
    ///   - clock: the time and how to wait; tests may substitute it.
    ///   - metrics: where to count deliveries (`hub_webhook_deliveries_total{outcome}`) and attempt
    ///     latency (`hub_webhook_attempt_duration{outcome}`); `nil` counts nothing.
    ///   - logger: failed attempts at debug, given-up events and storage errors at info.
    public init(
        database: Database,
        secrets: SecretsVault,
        client: any WebhookHTTPClient,
        configuration: WebhookConfiguration = WebhookConfiguration(),
        clock: WebhookClock = .system,
        metrics: (any MetricsFactory)? = nil,
        logger: Logger
    ) {
        self.database = database
        self.secrets = secrets
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        attempter = WebhookAttempter(
            client: client,
            clock: clock,
            timeout: configuration.requestTimeout,
            metrics: metrics.map(WebhookMetrics.init(factory:))
        )
        policy = WebhookRetryPolicy(schedule: configuration.retrySchedule, jitter: configuration.retryJitter)
        leaseDuration = configuration.requestTimeout * 2 + .seconds(30)
    }

    /// Wakes the dispatcher now instead of at its next poll: call it after appending events.
    /// Cheap, never blocks, and calls while it is busy coalesce into one more look.
    public func nudge() {
        wakeup.signal()
    }

    /// Delivers until graceful shutdown or cancellation. On graceful shutdown, attempts in flight
    /// finish and are recorded, and no new one starts; on cancellation they are abandoned
    /// unrecorded (the event is sent again after restart). A dispatcher runs once; make a new one
    /// to run again.
    public func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await self.loop()
            } onCancel: {
                self.stop()
            }
        } onGracefulShutdown: {
            self.stop()
        }
    }

    var isStopping: Bool { stopping.load(ordering: .relaxed) || Task.isCancelled }

    private func stop() {
        stopping.store(true, ordering: .relaxed)
        wakeup.signal()
    }

    /// Looks for due endpoints, starts a child task for each one not already being worked, then
    /// waits for a nudge, a finished child, the next due retry or the poll interval.
    private func loop() async {
        await withDiscardingTaskGroup { group in
            while !isStopping {
                var wait = configuration.pollInterval
                do {
                    let (due, nextDue) = try await dueEndpoints()
                    for endpoint in due {
                        let start = inFlight.withLock { working in
                            working.count < max(1, configuration.maxConcurrentEndpoints) && working.insert(endpoint.id).inserted
                        }
                        guard start else { continue }
                        group.addTask {
                            let turn = await self.work(endpoint)
                            self.inFlight.withLock { _ = $0.remove(endpoint.id) }
                            // A freed slot or remaining work: look again now. Not after an error,
                            // which would only repeat at once; the poll interval retries it.
                            if turn != .failed { self.wakeup.signal() }
                        }
                    }
                    if let nextDue {
                        let untilDue = Duration.nanoseconds(Int64(clamping: nextDue.nanoseconds &- clock.now().nanoseconds))
                        wait = min(wait, max(untilDue, .milliseconds(1)))
                    }
                } catch {
                    logger.info("reading webhook endpoints failed; retrying", metadata: ["error": "\(error)"])
                }
                await wakeup.wait(upTo: wait, sleep: clock.sleep)
            }
        }
    }

    /// Enabled endpoints behind the log whose retry is due and that no other process holds, in a
    /// rotating order so that, past the concurrency limit, every endpoint gets its turn; and the
    /// earliest time one that is not due yet becomes due.
    private func dueEndpoints() async throws -> (due: [EndpointState], nextDue: LedgerTimestamp?) {
        let now = clock.now()
        let (owner, vault) = (self.owner, secrets)
        let rows = try await database.read { connection in
            let last = try WebhookRows.lastEventSequence(on: connection)
            return try connection.query(
                """
                SELECT id, url, secret, event_types, cursor_sequence, head_attempts, next_attempt_at, lease_owner, lease_until,
                       previous_secret, previous_secret_expires_at
                FROM hub_webhook_endpoints WHERE enabled = 1 AND cursor_sequence < \(last) ORDER BY id
                """
            ).map { row in
                // Another dispatcher's lease keeps the endpoint from this one until it runs out.
                let leaseUntil = try row.decode("lease_until", as: LedgerTimestamp?.self)
                let foreignLease = try row.optionalText("lease_owner") != owner && leaseUntil != nil
                return (
                    state: EndpointState(
                        id: try row.decode("id"),
                        url: try row.text("url"),
                        secrets: try WebhookSecrets.signing(row, now: now, vault: vault, on: connection),
                        filter: WebhookEventFilter(trusted: try WebhookRows.decodeTypes(try row.text("event_types"))),
                        cursor: try row.int("cursor_sequence"),
                        headAttempts: Int(try row.int("head_attempts"))
                    ),
                    nextAttemptAt: try row.decode("next_attempt_at", as: LedgerTimestamp?.self),
                    heldUntil: foreignLease ? leaseUntil : nil
                )
            }
        }
        let working = inFlight.withLock { $0 }
        var due: [EndpointState] = []
        var nextDue: LedgerTimestamp?
        for row in rows where !working.contains(row.state.id) {
            if let at = row.nextAttemptAt, at > now {
                nextDue = min(nextDue ?? at, at)
            } else if let until = row.heldUntil, until > now {
                nextDue = min(nextDue ?? until, until)
            } else {
                due.append(row.state)
            }
        }
        if due.count > 1 {
            let offset = rotation.wrappingAdd(1, ordering: .relaxed).oldValue % due.count
            due = Array(due[offset...] + due[..<offset])
        }
        return (due, nextDue)
    }
}

/// What the dispatcher needs to work one endpoint, as read at the start of its turn.
struct EndpointState: Sendable {
    let id: WebhookEndpointID
    let url: String
    /// The current secret first, then a rotated one still in its overlap window.
    let secrets: [String]
    let filter: WebhookEventFilter
    let cursor: Int64
    let headAttempts: Int
}
