import HubKernel
import HubTestSupport
import Metrics
import Synchronization
import Testing

@Suite("Webhook metrics")
struct WebhookMetricsTests {
    @Test("deliveries are counted by outcome and their latency recorded", .timeLimit(.minutes(3)))
    func countsDeliveries() async throws {
        let metrics = RecordingMetricsFactory()
        try await withWebhooks(on: .sqlite, metrics: metrics) { hub in
            let endpoint = try await hub.endpoint("a")
            hub.receiver.failNext(1)
            try await hub.append(["t.a", "t.b"])
            try await hub.caughtUp(endpoint)
        }
        #expect(metrics.counter("hub_webhook_deliveries_total", ["outcome": "succeeded"]) == 2)
        #expect(metrics.counter("hub_webhook_deliveries_total", ["outcome": "failed"]) == 1)
        #expect(metrics.timings("hub_webhook_attempt_duration", ["outcome": "succeeded"]).count == 2)
        #expect(metrics.timings("hub_webhook_attempt_duration", ["outcome": "failed"]).allSatisfy { $0 > 0 })
    }
}

/// Counters and timers kept in memory, keyed by label and dimensions; no global bootstrap.
final class RecordingMetricsFactory: MetricsFactory, Sendable {
    private struct Key: Hashable {
        let label: String
        let dimensions: [String: String]
    }

    private let counters = Mutex<[Key: Int64]>([:])
    private let timers = Mutex<[Key: [Int64]]>([:])

    func counter(_ label: String, _ dimensions: [String: String]) -> Int64 {
        counters.withLock { $0[Key(label: label, dimensions: dimensions)] ?? 0 }
    }

    func timings(_ label: String, _ dimensions: [String: String]) -> [Int64] {
        timers.withLock { $0[Key(label: label, dimensions: dimensions)] ?? [] }
    }

    private final class CounterBox: CounterHandler, Sendable {
        let key: Key
        let factory: RecordingMetricsFactory
        init(key: Key, factory: RecordingMetricsFactory) {
            self.key = key
            self.factory = factory
        }
        func increment(by amount: Int64) { factory.counters.withLock { $0[key, default: 0] += amount } }
        func reset() { factory.counters.withLock { $0[key] = 0 } }
    }

    private final class TimerBox: TimerHandler, Sendable {
        let key: Key
        let factory: RecordingMetricsFactory
        init(key: Key, factory: RecordingMetricsFactory) {
            self.key = key
            self.factory = factory
        }
        func recordNanoseconds(_ duration: Int64) { factory.timers.withLock { $0[key, default: []].append(duration) } }
    }

    private final class Unused: RecorderHandler, FloatingPointCounterHandler, MeterHandler, Sendable {
        func record(_ value: Int64) {}
        func record(_ value: Double) {}
        func increment(by: Double) {}
        func reset() {}
        func set(_ value: Int64) {}
        func set(_ value: Double) {}
        func increment(by: Int64) {}
        func decrement(by: Int64) {}
        func decrement(by: Double) {}
    }

    private func key(_ label: String, _ dimensions: [(String, String)]) -> Key {
        Key(label: label, dimensions: Dictionary(dimensions, uniquingKeysWith: { $1 }))
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        CounterBox(key: key(label, dimensions), factory: self)
    }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler { Unused() }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { Unused() }
    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { Unused() }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { TimerBox(key: key(label, dimensions), factory: self) }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyMeter(_ handler: any MeterHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}
