/// The result of one HTTP attempt, before it is recorded.
struct WebhookAttemptResult: Sendable {
    var startedAt: LedgerTimestamp
    var durationMilliseconds: Int64
    var outcome: WebhookDelivery.Outcome
    var responseStatus: Int?
    var responseBody: String?
    var error: String?
}

/// Makes one signed attempt: shared by the dispatcher and manual redelivery, so both send the
/// same request and count it the same way.
struct WebhookAttempter: Sendable {
    let client: any WebhookHTTPClient
    let clock: WebhookClock
    let timeout: Duration
    let metrics: WebhookMetrics?

    /// Sends `event` to `url` signed with each of `secrets` (the current one, and a rotated one
    /// still in its overlap window: `webhook-signature` then carries both, space-separated, as
    /// Standard Webhooks allows, so the receiver can switch keys at its own pace). Every outcome
    /// but cancellation is a result (a failure is something to record, not to throw).
    /// - Throws: `CancellationError` when the task was cancelled mid-request; nothing is recorded
    ///   then, and the event is attempted again later.
    func attempt(_ event: EventRecord, url: String, secrets: [String]) async throws -> WebhookAttemptResult {
        let startedAt = clock.now()
        let timer = ContinuousClock.now
        let body = WebhookPayload.body(for: event)
        var result = WebhookAttemptResult(startedAt: startedAt, durationMilliseconds: 0, outcome: .failed)
        do {
            let timestamp = Int64(startedAt.nanoseconds / 1_000_000_000)
            var headers = try StandardWebhookSigner(secret: secrets[0]).headers(id: event.id, timestamp: timestamp, body: body)
            headers["webhook-signature"] = try secrets.map {
                try StandardWebhookSigner(secret: $0).sign(id: event.id, timestamp: timestamp, body: body)
            }
            .joined(separator: " ")
            headers["content-type"] = "application/json"
            let response = try await client.post(url: url, headers: headers, body: body, timeout: timeout)
            result.responseStatus = response.status
            if !response.bodyPrefix.isEmpty { result.responseBody = String(decoding: response.bodyPrefix, as: UTF8.self) }
            if response.isSuccess {
                result.outcome = .succeeded
            } else {
                result.error = "HTTP \(response.status)"
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as WebhookError {
            result.error = error.message
        } catch {
            result.error = "\(error)"
        }
        let elapsed = ContinuousClock.now - timer
        result.durationMilliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        metrics?.record(result.outcome, duration: elapsed)
        return result
    }
}
