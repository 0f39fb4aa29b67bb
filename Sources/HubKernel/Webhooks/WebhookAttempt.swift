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

    /// Sends `event` to `url` signed with `secret`. Every outcome but cancellation is a result
    /// (a failure is something to record, not to throw).
    /// - Throws: `CancellationError` when the task was cancelled mid-request; nothing is recorded
    ///   then, and the event is attempted again later.
    func attempt(_ event: EventRecord, url: String, secret: String) async throws -> WebhookAttemptResult {
        let startedAt = clock.now()
        let timer = ContinuousClock.now
        let body = WebhookPayload.body(for: event)
        var result = WebhookAttemptResult(startedAt: startedAt, durationMilliseconds: 0, outcome: .failed)
        do {
            var headers = try StandardWebhookSigner(secret: secret).headers(
                id: event.id,
                timestamp: Int64(startedAt.nanoseconds / 1_000_000_000),
                body: body
            )
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
