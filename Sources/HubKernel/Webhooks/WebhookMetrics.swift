import Metrics

/// Delivery counters and attempt latency, created once per outcome (the only dimension, so
/// cardinality stays at two whatever the number of endpoints).
struct WebhookMetrics: Sendable {
    private let succeeded: Counter
    private let failed: Counter
    private let succeededLatency: Timer
    private let failedLatency: Timer

    init(factory: any MetricsFactory) {
        succeeded = Counter(label: "hub_webhook_deliveries_total", dimensions: [("outcome", "succeeded")], factory: factory)
        failed = Counter(label: "hub_webhook_deliveries_total", dimensions: [("outcome", "failed")], factory: factory)
        succeededLatency = Timer(label: "hub_webhook_attempt_duration", dimensions: [("outcome", "succeeded")], factory: factory)
        failedLatency = Timer(label: "hub_webhook_attempt_duration", dimensions: [("outcome", "failed")], factory: factory)
    }

    func record(_ outcome: WebhookDelivery.Outcome, duration: Duration) {
        switch outcome {
        case .succeeded:
            succeeded.increment()
            succeededLatency.recordInterval(duration)
        case .failed:
            failed.increment()
            failedLatency.recordInterval(duration)
        }
    }
}

extension Timer {
    fileprivate func recordInterval(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
