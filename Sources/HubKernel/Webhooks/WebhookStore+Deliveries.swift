/// Delivery records, manual redelivery and per-endpoint status.
extension WebhookStore {
    /// Largest page ``deliveries(endpointID:cursor:limit:eventSequence:)`` returns.
    public static let maxPageSize = 500

    /// An endpoint's delivery attempts, **newest first** (by delivery id, which only grows), in
    /// pages of `limit`.
    ///
    /// Pass the returned `nextCursor` back as `cursor` for the next, older page; it is `nil` on the
    /// last page. Attempts recorded while paging appear on a fresh first page, never as duplicates.
    /// - Parameters:
    ///   - eventSequence: only the attempts at this event.
    /// - Throws: ``WebhookError`` `not_found`, `invalid_cursor`, or `invalid_field` (`limit`).
    public func deliveries(
        endpointID: WebhookEndpointID,
        cursor: String? = nil,
        limit: Int = 50,
        eventSequence: Int64? = nil
    ) async throws -> WebhookDeliveryPage {
        guard (1...Self.maxPageSize).contains(limit) else {
            throw WebhookError(.invalidField, "limit must be 1 to \(Self.maxPageSize)", field: "limit")
        }
        let before: Int64
        if let cursor {
            guard let id = Int64(cursor), id > 0, String(id) == cursor else {
                throw WebhookError(.invalidCursor, "this cursor was not returned by a previous page", field: "cursor")
            }
            before = id
        } else {
            before = Int64.max
        }
        return try await database.read { connection in
            _ = try Self.endpoint(endpointID, on: connection)
            var sql = WebhookRows.selectDeliveries + " WHERE endpoint_id = \(endpointID) AND id < \(before)"
            if let eventSequence { sql += " AND event_sequence = \(eventSequence)" }
            sql += " ORDER BY id DESC LIMIT \(limit + 1)"
            var deliveries = try connection.query(sql).map(WebhookRows.delivery)
            let more = deliveries.count > limit
            if more { deliveries.removeLast() }
            return WebhookDeliveryPage(deliveries: deliveries, nextCursor: more ? deliveries.last.map { String($0.id) } : nil)
        }
    }

    /// Sends one event to one endpoint now, whatever the endpoint's position, filter or enabled
    /// state, and records the attempt with `manual` set. The endpoint's cursor and retry state
    /// do not change: this is for a receiver that lost or mishandled an event it had acknowledged,
    /// or for replaying one the dispatcher gave up on.
    /// - Returns: the recorded attempt (check its `outcome`: a failed attempt is not an error here).
    /// - Throws: ``WebhookError`` `not_found` (field `endpoint_id` or `event_sequence`).
    public func redeliver(endpointID: WebhookEndpointID, eventSequence: Int64) async throws -> WebhookDelivery {
        let now = clock.now()
        let vault = self.secrets
        let (url, secrets, event) = try await database.read { connection in
            guard
                let row = try connection.queryFirst(
                    "SELECT id, url, secret, previous_secret, previous_secret_expires_at FROM hub_webhook_endpoints WHERE id = \(endpointID)"
                )
            else { throw Self.notFound(endpointID) }
            guard let event = try WebhookRows.event(eventSequence, on: connection) else {
                throw WebhookError(.notFound, "no event with sequence \(eventSequence)", field: "event_sequence")
            }
            return (try row.text("url"), try WebhookSecrets.signing(row, now: now, vault: vault, on: connection), event)
        }
        let result = try await attempter.attempt(event, url: url, secrets: secrets)
        return try await database.write { connection in
            // Deleted while the request was out: there is nothing left to record it against.
            _ = try Self.endpoint(endpointID, on: connection, forUpdate: true)
            return try WebhookRows.insertDelivery(endpointID: endpointID, event: event, result: result, manual: true, gaveUp: false, on: connection)
        }
    }

    /// Where an endpoint stands: its cursor against the log, any waiting retry, failure counts and
    /// the last attempt.
    /// - Throws: ``WebhookError`` `not_found`.
    public func status(_ endpointID: WebhookEndpointID) async throws -> WebhookEndpointStatus {
        try await database.read { connection in
            guard
                let row = try connection.queryFirst(
                    """
                    SELECT enabled, cursor_sequence, next_attempt_at, head_attempts, consecutive_failures, failed_permanently
                    FROM hub_webhook_endpoints WHERE id = \(endpointID)
                    """
                )
            else { throw Self.notFound(endpointID) }
            let last = try connection.queryFirst(WebhookRows.selectDeliveries + " WHERE endpoint_id = \(endpointID) ORDER BY id DESC LIMIT 1")
            return WebhookEndpointStatus(
                endpointID: endpointID,
                enabled: try row.int("enabled") != 0,
                cursor: try row.int("cursor_sequence"),
                lastEventSequence: try WebhookRows.lastEventSequence(on: connection),
                nextAttemptAt: try row.decode("next_attempt_at"),
                headAttempts: Int(try row.int("head_attempts")),
                consecutiveFailures: try row.int("consecutive_failures"),
                failedPermanently: try row.int("failed_permanently"),
                lastDelivery: try last.map(WebhookRows.delivery)
            )
        }
    }
}
