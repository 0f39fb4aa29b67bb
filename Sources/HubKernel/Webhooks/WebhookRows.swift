import Foundation

/// Reading and writing the webhook tables, shared by the store and the dispatcher.
enum WebhookRows {
    static let selectEndpoints: SQL =
        "SELECT id, url, description, event_types, enabled, created_at, updated_at, created_by FROM hub_webhook_endpoints"

    static func endpoint(_ row: SQLRow) throws -> WebhookEndpoint {
        WebhookEndpoint(
            id: try row.decode("id"),
            url: try row.text("url"),
            description: try row.text("description"),
            eventTypes: try decodeTypes(try row.text("event_types")),
            enabled: try row.int("enabled") != 0,
            createdAt: try row.decode("created_at"),
            updatedAt: try row.decode("updated_at"),
            createdBy: try row.optionalText("created_by"),
            secret: nil
        )
    }

    /// The delivery columns, for `SELECT` and `RETURNING` alike.
    static let deliveryColumns: SQL =
        "id, endpoint_id, event_sequence, event_id, event_type, attempt, started_at, duration_ms, outcome, response_status, response_body, error, manual, gave_up"
    static let selectDeliveries: SQL = "SELECT \(deliveryColumns) FROM hub_webhook_deliveries"

    static func delivery(_ row: SQLRow) throws -> WebhookDelivery {
        let outcome = try row.text("outcome")
        guard let parsed = WebhookDelivery.Outcome(rawValue: outcome) else {
            throw DatabaseError(.decode, "column 'outcome': '\(outcome)' is not a delivery outcome")
        }
        return WebhookDelivery(
            id: try row.int("id"),
            endpointID: try row.decode("endpoint_id"),
            eventSequence: try row.int("event_sequence"),
            eventID: try row.text("event_id"),
            eventType: try row.text("event_type"),
            attempt: Int(try row.int("attempt")),
            startedAt: try row.decode("started_at"),
            durationMilliseconds: try row.int("duration_ms"),
            outcome: parsed,
            responseStatus: try row.optionalInt("response_status").map { Int($0) },
            responseBody: try row.optionalText("response_body"),
            error: try row.optionalText("error"),
            manual: try row.int("manual") != 0,
            gaveUp: try row.int("gave_up") != 0
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
                "SELECT count(*) AS attempts FROM hub_webhook_deliveries WHERE endpoint_id = \(endpointID) AND event_sequence = \(event.sequence)"
            )?.int("attempts") ?? 0
        let row = try connection.queryFirst(
            """
            INSERT INTO hub_webhook_deliveries (endpoint_id, event_sequence, event_id, event_type, attempt, started_at, duration_ms,
                outcome, response_status, response_body, error, manual, gave_up)
            VALUES (\(endpointID), \(event.sequence), \(event.id), \(event.type), \(previous + 1), \(result.startedAt),
                \(result.durationMilliseconds), \(result.outcome.rawValue), \(result.responseStatus), \(result.responseBody),
                \(result.error), \(manual), \(gaveUp))
            RETURNING \(deliveryColumns)
            """
        )
        guard let row else { throw DatabaseError(.query, "inserting a webhook delivery returned no row") }
        return try delivery(row)
    }

    /// The newest event sequence in the log (0 when it is empty). A plain read, without the row
    /// lock that appenders take, so it also works in read-only transactions.
    static func lastEventSequence(on connection: any SQLConnection) throws -> Int64 {
        try Counters.peek(.eventSequence, on: connection)
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
