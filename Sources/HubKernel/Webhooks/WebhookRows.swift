import Foundation

/// Reading and writing the webhook tables, shared by the store and the dispatcher.
enum WebhookRows {
    /// The secrets a request is signed with: the current one (column `current`), and the previous
    /// one (columns `previous`, `previous + 1`: secret and expiry) while its overlap lasts.
    static func signingSecrets(_ row: SQLRow, current: Int, previous: Int, now: LedgerTimestamp) throws -> [String] {
        var secrets = [try row.text(current)]
        if let old = try row.optionalText(previous), !row.isNull(previous + 1), try LedgerTimestamp(row: row, previous + 1) > now {
            secrets.append(old)
        }
        return secrets
    }

    static let endpointColumns = "id, url, description, event_types, enabled, created_at, updated_at, created_by"

    static func endpoint(_ row: SQLRow) throws -> WebhookEndpoint {
        WebhookEndpoint(
            id: try endpointID(row, 0),
            url: try row.text(1),
            description: try row.text(2),
            eventTypes: try decodeTypes(try row.text(3)),
            enabled: try row.int(4) != 0,
            createdAt: try LedgerTimestamp(row: row, 5),
            updatedAt: try LedgerTimestamp(row: row, 6),
            createdBy: try row.optionalText(7),
            secret: nil
        )
    }

    static func endpointID(_ row: SQLRow, _ index: Int) throws -> WebhookEndpointID {
        let text = try row.text(index)
        guard let id = WebhookEndpointID(text) else { throw DatabaseError(.decode, "column \(index): '\(text)' is not an endpoint id") }
        return id
    }

    static let deliveryColumns =
        "id, endpoint_id, event_sequence, event_id, event_type, attempt, started_at, duration_ms, outcome, response_status, response_body, error, manual, gave_up"

    static func delivery(_ row: SQLRow) throws -> WebhookDelivery {
        let outcome = try row.text(8)
        guard let parsed = WebhookDelivery.Outcome(rawValue: outcome) else {
            throw DatabaseError(.decode, "column 8: '\(outcome)' is not a delivery outcome")
        }
        return WebhookDelivery(
            id: try row.int(0),
            endpointID: try endpointID(row, 1),
            eventSequence: try row.int(2),
            eventID: try row.text(3),
            eventType: try row.text(4),
            attempt: Int(try row.int(5)),
            startedAt: try LedgerTimestamp(row: row, 6),
            durationMilliseconds: try row.int(7),
            outcome: parsed,
            responseStatus: try row.optionalInt(9).map { Int($0) },
            responseBody: try row.optionalText(10),
            error: try row.optionalText(11),
            manual: try row.int(12) != 0,
            gaveUp: try row.int(13) != 0
        )
    }

    /// Records one attempt. Its number is one more than the attempts already recorded for this
    /// event on this endpoint, counted in the same transaction, so manual and automatic attempts
    /// share one sequence.
    static func insertDelivery(
        endpointID: WebhookEndpointID,
        event: EventRecord,
        result: WebhookAttemptResult,
        manual: Bool,
        gaveUp: Bool,
        on connection: any SQLConnection
    ) throws -> WebhookDelivery {
        let previous =
            try connection.queryFirst(
                "SELECT count(*) FROM hub_webhook_deliveries WHERE endpoint_id = $1 AND event_sequence = $2",
                [endpointID.textValue, .int(event.sequence)]
            )?.int(0) ?? 0
        let row = try connection.queryFirst(
            """
            INSERT INTO hub_webhook_deliveries (endpoint_id, event_sequence, event_id, event_type, attempt, started_at, duration_ms,
                outcome, response_status, response_body, error, manual, gave_up)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
            RETURNING \(deliveryColumns)
            """,
            [
                endpointID.textValue, .int(event.sequence), .text(event.id), .text(event.type), .int(previous + 1),
                result.startedAt.sqlValue, .int(result.durationMilliseconds), .text(result.outcome.rawValue),
                .optional(result.responseStatus.map { .int(Int64($0)) }), .optional(result.responseBody.map(SQLValue.text)),
                .optional(result.error.map(SQLValue.text)), .int(manual ? 1 : 0), .int(gaveUp ? 1 : 0),
            ]
        )
        guard let row else { throw DatabaseError(.query, "inserting a webhook delivery returned no row") }
        return try delivery(row)
    }

    /// The newest event sequence in the log (0 when it is empty). A plain read, without the row
    /// lock that appenders take, so it also works in read-only transactions.
    static func lastEventSequence(on connection: any SQLConnection) throws -> Int64 {
        try connection.queryFirst("SELECT value FROM hub_counters WHERE name = $1", [.text("event_sequence")])?.int(0) ?? 0
    }

    /// One event by its sequence number.
    static func event(_ sequence: Int64, on connection: any SQLConnection) throws -> EventRecord? {
        guard sequence > 0 else { return nil }
        return try EventLog.read(after: sequence - 1, limit: 1, on: connection).first { $0.sequence == sequence }
    }

    /// Event-type filters are stored as a JSON array of strings.
    static func encodeTypes(_ types: [String]) -> String {
        let data = try! JSONSerialization.data(withJSONObject: types, options: [.withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    static func decodeTypes(_ text: String) throws -> [String] {
        guard let types = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String] else {
            throw DatabaseError(.decode, "event_types '\(text.prefix(100))' is not a JSON array of strings")
        }
        return types
    }
}

extension Optional where Wrapped == LedgerTimestamp {
    var sqlValue: SQLValue { self?.sqlValue ?? .null }
}
