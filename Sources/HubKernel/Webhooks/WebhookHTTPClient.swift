/// Sends one webhook request. The dispatcher and manual redelivery use it; tests may substitute
/// their own.
public protocol WebhookHTTPClient: Sendable {
    /// POSTs `body` to `url` and returns the response status and the start of its body.
    ///
    /// Implementations follow no redirects (a 3xx is the receiver's answer, and a failure) and
    /// give up after `timeout` in total, connecting included.
    /// - Throws: ``WebhookError`` `transport_failed` when no HTTP response arrived (DNS, connect,
    ///   TLS, timeout); `CancellationError` when the calling task was cancelled mid-request.
    func post(url: String, headers: [String: String], body: [UInt8], timeout: Duration) async throws -> WebhookHTTPResponse
}

/// What a receiver answered.
public struct WebhookHTTPResponse: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// The first bytes of the response body (at most ``CurlWebhookClient/maxResponseBytes`` from
    /// the curl client), kept for the delivery record.
    public var bodyPrefix: [UInt8]

    public init(status: Int, bodyPrefix: [UInt8]) {
        self.status = status
        self.bodyPrefix = bodyPrefix
    }

    /// 2xx, the only success in the Standard Webhooks scheme.
    public var isSuccess: Bool { (200...299).contains(status) }
}
