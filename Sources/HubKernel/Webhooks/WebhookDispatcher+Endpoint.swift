import Logging

/// One endpoint's turn: claim it, send events after its cursor until it is caught up, blocked on
/// a retry or has had its share, then let go of it.
extension WebhookDispatcher {
    enum Turn: Equatable {
        /// No events left after the cursor.
        case caughtUp
        /// Had its share of events this turn; more are waiting.
        case moreWork
        /// The head event failed and waits for its retry time.
        case waiting
        /// Shutting down, or the endpoint was disabled.
        case stopped
        /// Another process holds the endpoint, or it changed or vanished under this turn.
        case lost
        /// A storage error; the next poll tries again.
        case failed
    }

    /// A change of an endpoint's position after one attempt.
    private struct Step {
        var cursor: Int64
        var headAttempts: Int
        var nextAttemptAt: LedgerTimestamp?
        var succeeded: Bool
        var gaveUp: Bool
    }

    /// Events read from the log per query.
    private static let readBatch = 100

    func work(_ endpoint: EndpointState) async -> Turn {
        do {
            guard try await claim(endpoint) else { return .lost }
            let turn: Turn
            do {
                turn = try await deliver(endpoint)
            } catch {
                try? await release(endpoint.id)
                throw error
            }
            try await release(endpoint.id)
            return turn
        } catch is CancellationError {
            return .stopped
        } catch {
            logger.info(
                "webhook delivery stopped by a storage error; retrying at the next poll",
                metadata: ["hub.webhook.endpoint.id": "\(endpoint.id)", "error": "\(error)"]
            )
            return .failed
        }
    }

    private func deliver(_ endpoint: EndpointState) async throws -> Turn {
        var cursor = endpoint.cursor
        var headAttempts = endpoint.headAttempts
        var sent = 0
        while !isStopping {
            let after = cursor
            let events = try await database.read { try EventLog.read(after: after, limit: Self.readBatch, on: $0) }
            guard !events.isEmpty else { return .caughtUp }
            var skippedTo: Int64?
            for event in events {
                guard endpoint.filter.matches(event.type) else {
                    skippedTo = event.sequence
                    continue
                }
                if isStopping { break }
                let result = try await attempter.attempt(event, url: endpoint.url, secrets: endpoint.secrets)
                let step = nextStep(after: result, at: event.sequence, from: skippedTo ?? cursor, headAttempts: headAttempts)
                log(result, step, endpoint: endpoint.id, event: event)
                guard let enabled = try await record(endpoint.id, from: (cursor, headAttempts), to: step, event: event, result: result) else {
                    return .lost
                }
                cursor = step.cursor
                headAttempts = step.headAttempts
                skippedTo = nil
                if step.nextAttemptAt != nil { return .waiting }
                if !enabled { return .stopped }
                sent += 1
                if sent >= configuration.eventsPerTurn { return .moreWork }
            }
            if let skippedTo {
                guard try await skip(endpoint.id, from: cursor, to: skippedTo) else { return .lost }
                cursor = skippedTo
                headAttempts = 0
            }
        }
        return .stopped
    }

    /// Success or a final failure moves the cursor past the event; any other failure keeps it
    /// (past the events skipped before it) and sets the retry time.
    private func nextStep(after result: WebhookAttemptResult, at sequence: Int64, from position: Int64, headAttempts: Int) -> Step {
        if result.outcome == .succeeded {
            return Step(cursor: sequence, headAttempts: 0, nextAttemptAt: nil, succeeded: true, gaveUp: false)
        }
        switch policy.afterFailure(failedAttempts: headAttempts + 1, now: clock.now(), random: Double.random(in: 0..<1)) {
        case .retry(let at):
            return Step(cursor: position, headAttempts: headAttempts + 1, nextAttemptAt: at, succeeded: false, gaveUp: false)
        case .giveUp:
            return Step(cursor: sequence, headAttempts: 0, nextAttemptAt: nil, succeeded: false, gaveUp: true)
        }
    }

    private func log(_ result: WebhookAttemptResult, _ step: Step, endpoint: WebhookEndpointID, event: EventRecord) {
        guard result.outcome == .failed else { return }
        let metadata: Logger.Metadata = [
            "hub.webhook.endpoint.id": "\(endpoint)", "hub.event.sequence": "\(event.sequence)",
            "error": "\(result.error ?? "")", "hub.webhook.attempt": "\(step.gaveUp ? policy.schedule.count + 1 : step.headAttempts)",
        ]
        if step.gaveUp {
            logger.info("webhook event given up after the last retry", metadata: metadata)
        } else {
            logger.debug("webhook attempt failed; will retry", metadata: metadata)
        }
    }

    /// Takes the endpoint's lease if nobody else holds it and it is still where it was read.
    private func claim(_ endpoint: EndpointState) async throws -> Bool {
        let now = clock.now()
        let until = now.adding(leaseDuration)
        let owner = self.owner
        return try await database.write { connection in
            try connection.execute(
                """
                UPDATE hub_webhook_endpoints SET lease_owner = \(owner), lease_until = \(until)
                WHERE id = \(endpoint.id) AND enabled = 1 AND cursor_sequence = \(endpoint.cursor) AND head_attempts = \(endpoint.headAttempts)
                    AND (lease_owner IS NULL OR lease_owner = \(owner) OR lease_until < \(now))
                """
            ) == 1
        }
    }

    private func release(_ id: WebhookEndpointID) async throws {
        let owner = self.owner
        _ = try await database.write { connection in
            try connection.execute(
                "UPDATE hub_webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE id = \(id) AND lease_owner = \(owner)"
            )
        }
    }

    /// Records the attempt and the endpoint's new position in one transaction, and renews the
    /// lease. Returns whether the endpoint is still enabled, or `nil` when it moved or vanished
    /// under this turn (the attempt is still recorded if the endpoint exists).
    private func record(
        _ id: WebhookEndpointID,
        from expected: (cursor: Int64, headAttempts: Int),
        to step: Step,
        event: EventRecord,
        result: WebhookAttemptResult
    ) async throws -> Bool? {
        let owner = self.owner
        let leaseUntil = clock.now().adding(leaseDuration)
        return try await database.write { connection in
            let updated = try connection.query(
                """
                UPDATE hub_webhook_endpoints SET cursor_sequence = \(step.cursor), head_attempts = \(step.headAttempts),
                    next_attempt_at = \(step.nextAttemptAt),
                    consecutive_failures = CASE WHEN \(step.succeeded) = 1 THEN 0 ELSE consecutive_failures + 1 END,
                    failed_permanently = failed_permanently + \(step.gaveUp ? 1 : 0), lease_until = \(leaseUntil)
                WHERE id = \(id) AND lease_owner = \(owner) AND cursor_sequence = \(expected.cursor) AND head_attempts = \(expected.headAttempts)
                RETURNING enabled
                """
            )
            var exists = !updated.isEmpty
            if !exists {
                exists = try connection.queryFirst("SELECT 1 FROM hub_webhook_endpoints WHERE id = \(id)") != nil
            }
            if exists {
                _ = try WebhookRows.insertDelivery(
                    endpointID: id,
                    event: event,
                    result: result,
                    manual: false,
                    gaveUp: step.gaveUp && !updated.isEmpty,
                    on: connection
                )
            }
            return try updated.first.map { try $0.int("enabled") != 0 }
        }
    }

    /// Moves the cursor over events the filter does not match.
    private func skip(_ id: WebhookEndpointID, from cursor: Int64, to sequence: Int64) async throws -> Bool {
        let owner = self.owner
        let leaseUntil = clock.now().adding(leaseDuration)
        return try await database.write { connection in
            try connection.execute(
                """
                UPDATE hub_webhook_endpoints SET cursor_sequence = \(sequence), head_attempts = 0, next_attempt_at = NULL, lease_until = \(leaseUntil)
                WHERE id = \(id) AND lease_owner = \(owner) AND cursor_sequence = \(cursor)
                """
            ) == 1
        }
    }
}
