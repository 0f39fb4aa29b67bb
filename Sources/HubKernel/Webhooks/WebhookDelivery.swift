/// One HTTP attempt to deliver one event to one endpoint, as recorded.
public struct WebhookDelivery: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable {
        /// The receiver answered 2xx.
        case succeeded
        /// Any other status, or no answer (connect error, timeout).
        case failed
    }

    /// Increases with every recorded attempt, across endpoints; pagination orders by it.
    public var id: Int64
    public var endpointID: WebhookEndpointID
    public var eventSequence: Int64
    /// The event's CloudEvents id, sent as `webhook-id`.
    public var eventID: String
    public var eventType: String
    /// 1 for the first attempt at this event on this endpoint, then 2, 3, … (manual attempts count).
    public var attempt: Int
    public var startedAt: LedgerTimestamp
    public var durationMilliseconds: Int64
    public var outcome: Outcome
    /// The HTTP status, when the receiver answered.
    public var responseStatus: Int?
    /// The first 4 KiB of the response body (invalid UTF-8 replaced), when there was one.
    public var responseBody: String?
    /// Why the attempt failed: the transport error or `HTTP <status>`.
    public var error: String?
    /// Made by ``WebhookStore/redeliver(endpointID:eventSequence:)``, not by the dispatcher.
    public var manual: Bool
    /// The retry schedule was exhausted with this attempt: the dispatcher gave up on the event
    /// and moved on to the next.
    public var gaveUp: Bool

    public init(
        id: Int64,
        endpointID: WebhookEndpointID,
        eventSequence: Int64,
        eventID: String,
        eventType: String,
        attempt: Int,
        startedAt: LedgerTimestamp,
        durationMilliseconds: Int64,
        outcome: Outcome,
        responseStatus: Int?,
        responseBody: String?,
        error: String?,
        manual: Bool,
        gaveUp: Bool
    ) {
        self.id = id
        self.endpointID = endpointID
        self.eventSequence = eventSequence
        self.eventID = eventID
        self.eventType = eventType
        self.attempt = attempt
        self.startedAt = startedAt
        self.durationMilliseconds = durationMilliseconds
        self.outcome = outcome
        self.responseStatus = responseStatus
        self.responseBody = responseBody
        self.error = error
        self.manual = manual
        self.gaveUp = gaveUp
    }
}

/// One page of an endpoint's delivery attempts, newest first.
public struct WebhookDeliveryPage: Sendable, Equatable {
    public var deliveries: [WebhookDelivery]
    /// Pass this as `cursor` to get the next (older) page; `nil` on the last page.
    public var nextCursor: String?

    public init(deliveries: [WebhookDelivery], nextCursor: String?) {
        self.deliveries = deliveries
        self.nextCursor = nextCursor
    }
}

/// Where an endpoint stands against the event log.
public struct WebhookEndpointStatus: Sendable, Equatable {
    public var endpointID: WebhookEndpointID
    public var enabled: Bool
    /// The last event sequence handled (delivered, skipped by the filter, or given up on).
    public var cursor: Int64
    /// The newest event sequence in the log.
    public var lastEventSequence: Int64
    /// `lastEventSequence - cursor`: events not yet handled, whether or not the filter matches them.
    public var lag: Int64 { max(0, lastEventSequence - cursor) }
    /// When the event at the head will be retried; `nil` when nothing is waiting on a retry.
    public var nextAttemptAt: LedgerTimestamp?
    /// Failed attempts at the event at the head of the queue.
    public var headAttempts: Int
    /// Failed dispatcher attempts since the last success, across events.
    public var consecutiveFailures: Int64
    /// Events given up on after the whole retry schedule failed.
    public var failedPermanently: Int64
    /// The most recent attempt, manual or not.
    public var lastDelivery: WebhookDelivery?

    public init(
        endpointID: WebhookEndpointID,
        enabled: Bool,
        cursor: Int64,
        lastEventSequence: Int64,
        nextAttemptAt: LedgerTimestamp?,
        headAttempts: Int,
        consecutiveFailures: Int64,
        failedPermanently: Int64,
        lastDelivery: WebhookDelivery?
    ) {
        self.endpointID = endpointID
        self.enabled = enabled
        self.cursor = cursor
        self.lastEventSequence = lastEventSequence
        self.nextAttemptAt = nextAttemptAt
        self.headAttempts = headAttempts
        self.consecutiveFailures = consecutiveFailures
        self.failedPermanently = failedPermanently
        self.lastDelivery = lastDelivery
    }
}
