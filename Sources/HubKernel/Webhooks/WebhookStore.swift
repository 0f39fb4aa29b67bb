public import Metrics

/// Webhook endpoints and their delivery records: what the HTTP API manages and shows.
///
/// Every method validates before it writes, so a refused request changes nothing. Errors are
/// ``WebhookError``s with a stable `code` (`invalid_url`, `invalid_filter`, `invalid_field`,
/// `invalid_cursor`, `not_found`) and the `field` at fault.
///
/// ```swift
/// let store = WebhookStore(database: db, client: CurlWebhookClient())
/// let endpoint = try await store.create(NewWebhookEndpoint(url: "https://example.com/hook", eventTypes: ["ledger.transfer.*"]))
/// print(endpoint.secret!)  // shown once: give it to the receiver
/// ```
public struct WebhookStore: Sendable {
    public let database: Database
    /// Where the endpoints' signing secrets are kept (``WebhookSecrets``).
    let secrets: SecretsVault
    let clock: WebhookClock
    let attempter: WebhookAttempter
    /// Which receiver addresses endpoints may name (checked when they are saved).
    let addressPolicy: WebhookAddressPolicy

    /// - Parameters:
    ///   - database: a database migrated with the kernel's migrations.
    ///   - secrets: the prepared vault the signing secrets are sealed in.
    ///   - client: sends manual redeliveries.
    ///   - configuration: the request timeout for manual redeliveries, the address policy.
    ///   - clock: timestamps of changes and attempts.
    ///   - metrics: counts manual attempts with the dispatcher's metrics, when given.
    public init(
        database: Database,
        secrets: SecretsVault,
        client: any WebhookHTTPClient,
        configuration: WebhookConfiguration = WebhookConfiguration(),
        clock: WebhookClock = .system,
        metrics: (any MetricsFactory)? = nil
    ) {
        self.database = database
        self.secrets = secrets
        self.clock = clock
        self.addressPolicy = configuration.addressPolicy
        attempter = WebhookAttempter(
            client: client,
            clock: clock,
            timeout: configuration.requestTimeout,
            metrics: metrics.map(WebhookMetrics.init(factory:))
        )
    }

    // MARK: Endpoints

    /// Creates an endpoint with a new random secret and returns it, secret included (the only
    /// time it is returned besides ``rotateSecret(_:)``).
    ///
    /// The endpoint starts at the current end of the event log unless `startAfterSequence` says
    /// otherwise. The end is read under the event counter's lock, so an event committed after this
    /// call returns is delivered and one committed before it is not.
    /// - Throws: ``WebhookError`` `invalid_url`, `invalid_filter` or `invalid_field`
    ///   (`description`, `created_by`, `start_after_sequence`).
    public func create(_ new: NewWebhookEndpoint) async throws -> WebhookEndpoint {
        let url = try WebhookValidation.url(new.url, policy: addressPolicy)
        let description = try WebhookValidation.description(new.description)
        let filter = try WebhookEventFilter(validating: new.eventTypes)
        if let createdBy = new.createdBy, createdBy.isEmpty || createdBy.utf8.count > 200 {
            throw WebhookError(.invalidField, "created_by must be 1 to 200 bytes", field: "created_by")
        }
        let start = new.startAfterSequence
        if let start, start < 0 {
            throw WebhookError(.invalidField, "start_after_sequence must not be negative", field: "start_after_sequence")
        }
        let endpoint = WebhookEndpoint(
            id: .random(),
            url: url,
            description: description,
            eventTypes: filter.patterns,
            enabled: new.enabled,
            createdAt: clock.now(),
            updatedAt: clock.now(),
            createdBy: new.createdBy,
            secret: StandardWebhookSigner.generateSecret()
        )
        let types = WebhookRows.encodeTypes(endpoint.eventTypes)
        let vault = secrets
        return try await database.write { connection in
            let last = try Counters.read(.eventSequence, on: connection)
            if let start, start > last {
                throw WebhookError(
                    .invalidField,
                    "start_after_sequence \(start) is past the end of the event log (\(last))",
                    field: "start_after_sequence"
                )
            }
            try connection.execute(
                """
                INSERT INTO hub_webhook_endpoints (id, url, description, secret, event_types, enabled, created_at, updated_at, created_by,
                    cursor_sequence, next_attempt_at, head_attempts, consecutive_failures, failed_permanently, lease_owner, lease_until)
                VALUES (\(endpoint.id), \(endpoint.url), \(endpoint.description), '', \(types), \(endpoint.enabled),
                    \(endpoint.createdAt), \(endpoint.updatedAt), \(endpoint.createdBy), \(start ?? last), NULL, 0, 0, 0, NULL, NULL)
                """
            )
            try WebhookSecrets.store(endpoint.secret!, for: endpoint.id, vault: vault, on: connection)
            return endpoint
        }
    }

    /// Every endpoint, oldest first, without secrets.
    public func list() async throws -> [WebhookEndpoint] {
        try await database.read { connection in
            try connection.query(WebhookRows.selectEndpoints + " ORDER BY created_at, id").map(WebhookRows.endpoint)
        }
    }

    /// One endpoint, without its secret.
    /// - Throws: ``WebhookError`` `not_found`.
    public func get(_ id: WebhookEndpointID) async throws -> WebhookEndpoint {
        try await database.read { connection in try Self.endpoint(id, on: connection) }
    }

    /// Changes the fields that `update` sets. Changing the URL or the filters, or enabling the
    /// endpoint, also makes a waiting retry due now: what failed may work at the new address or
    /// after the pause, and an event the new filters exclude no longer blocks the ones after it.
    /// - Throws: ``WebhookError`` `not_found`, `invalid_url`, `invalid_filter`, `invalid_field`.
    public func update(_ id: WebhookEndpointID, _ update: WebhookEndpointUpdate) async throws -> WebhookEndpoint {
        let url = try update.url.map { try WebhookValidation.url($0, policy: addressPolicy) }
        let description = try update.description.map(WebhookValidation.description)
        let types = try update.eventTypes.map { try WebhookEventFilter(validating: $0).patterns }
        let now = clock.now()
        return try await database.write { connection in
            let current = try Self.endpoint(id, on: connection, forUpdate: true)
            var changed = current
            if let url { changed.url = url }
            if let description { changed.description = description }
            if let types { changed.eventTypes = types }
            if let enabled = update.enabled { changed.enabled = enabled }
            guard changed != current else { return current }
            changed.updatedAt = now
            let retryNow = changed.url != current.url || changed.eventTypes != current.eventTypes || (changed.enabled && !current.enabled)
            try connection.execute(
                """
                UPDATE hub_webhook_endpoints SET url = \(changed.url), description = \(changed.description),
                    event_types = \(WebhookRows.encodeTypes(changed.eventTypes)), enabled = \(changed.enabled), updated_at = \(now),
                    next_attempt_at = CASE WHEN \(retryNow) = 1 THEN NULL ELSE next_attempt_at END
                WHERE id = \(id)
                """
            )
            return changed
        }
    }

    /// Deletes an endpoint and its delivery records.
    /// - Throws: ``WebhookError`` `not_found`.
    public func delete(_ id: WebhookEndpointID) async throws {
        let vault = secrets
        try await database.write { connection in
            try WebhookSecrets.remove(id, vault: vault, on: connection)
            guard try connection.execute("DELETE FROM hub_webhook_endpoints WHERE id = \(id)") == 1 else {
                throw Self.notFound(id)
            }
        }
    }

    /// The longest overlap a rotation may keep the old secret signing.
    public static let maximumSecretOverlap: Duration = .seconds(7 * 24 * 3600)

    /// Replaces the endpoint's secret with a new random one and returns the endpoint with it.
    /// For `overlap` (24 hours unless given, at most a week, zero to stop the old one at once)
    /// every request is signed with both, so receivers switch to the new secret when they are
    /// ready; a second rotation within the window drops the oldest secret.
    /// - Throws: ``WebhookError`` `not_found`, `invalid_field` (`overlap_seconds`).
    public func rotateSecret(_ id: WebhookEndpointID, overlap: Duration = .seconds(24 * 3600)) async throws -> WebhookEndpoint {
        guard overlap >= .zero, overlap <= Self.maximumSecretOverlap else {
            throw WebhookError(.invalidField, "the overlap is 0 to \(Self.maximumSecretOverlap.components.seconds) seconds", field: "overlap_seconds")
        }
        let secret = StandardWebhookSigner.generateSecret()
        let now = clock.now()
        let expires = now.adding(overlap)
        let vault = secrets
        return try await database.write { connection in
            var endpoint = try Self.endpoint(id, on: connection, forUpdate: true)
            let row = try connection.queryFirst("SELECT id, secret FROM hub_webhook_endpoints WHERE id = \(id)")!
            try WebhookSecrets.rotate(to: secret, for: id, legacy: row, vault: vault, on: connection)
            try connection.execute(
                """
                UPDATE hub_webhook_endpoints SET secret = '', previous_secret = NULL, previous_secret_expires_at = \(expires), \
                updated_at = \(now) WHERE id = \(id)
                """
            )
            endpoint.secret = secret
            endpoint.previousSecretExpiresAt = overlap > .zero ? expires : nil
            endpoint.updatedAt = now
            return endpoint
        }
    }

    /// Moves plaintext secrets left from before the vault into it, all in one transaction; run
    /// once at start-up after the vault is prepared. Returns how many endpoints moved.
    @discardableResult
    public func moveSecretsIntoVault() async throws -> Int {
        try await WebhookSecrets.moveIntoVault(secrets)
    }

    static func endpoint(_ id: WebhookEndpointID, on connection: any SQLConnection, forUpdate: Bool = false) throws -> WebhookEndpoint {
        let lock: SQL = forUpdate ? .forUpdate(connection.dialect) : ""
        guard let row = try connection.queryFirst(WebhookRows.selectEndpoints + " WHERE id = \(id)" + lock) else { throw notFound(id) }
        return try WebhookRows.endpoint(row)
    }

    static func notFound(_ id: WebhookEndpointID) -> WebhookError {
        WebhookError(.notFound, "no webhook endpoint \(id)", field: "endpoint_id")
    }
}
