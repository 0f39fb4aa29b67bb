import Synchronization

/// Which chains keep failing to seal, shared by the sealer (which records) and the plugin's
/// `health()` (which reports).
///
/// A chain whose block cannot be sealed (a database error, a key that no longer opens) must not
/// be retried every tick forever, flooding the log while the hub says all is well: each failure
/// doubles the wait before the next attempt (up to ``maximumBackoffMs``), and after
/// ``degradedAfter`` failures in a row the rail reports `degraded` naming the chain. One success
/// clears it.
final class SealerHealth: Sendable {
    struct Failing: Sendable, Equatable {
        var failures: Int
        var retryAtMs: Int64
        var lastError: String
    }

    static let degradedAfter = 3
    static let maximumBackoffMs: Int64 = 30_000

    private let failing = Mutex<[UInt64: Failing]>([:])

    init() {}

    /// Whether the chain may be tried now (it is not waiting out a back-off).
    func mayTry(_ chainID: UInt64, nowMs: Int64) -> Bool {
        failing.withLock { ($0[chainID]?.retryAtMs ?? 0) <= nowMs }
    }

    /// Records a failure; `true` when this one makes the chain degraded (report it once).
    func failed(_ chainID: UInt64, error: String, nowMs: Int64, tickMs: Int64) -> Bool {
        failing.withLock { table in
            var entry = table[chainID] ?? Failing(failures: 0, retryAtMs: 0, lastError: "")
            entry.failures += 1
            entry.lastError = error
            let backoff = min(Self.maximumBackoffMs, max(tickMs, 1) << min(entry.failures, 20))
            entry.retryAtMs = nowMs + backoff
            table[chainID] = entry
            return entry.failures == Self.degradedAfter
        }
    }

    /// Records a success; `true` when the chain was degraded until now.
    func succeeded(_ chainID: UInt64) -> Bool {
        failing.withLock { table in
            guard let entry = table.removeValue(forKey: chainID) else { return false }
            return entry.failures >= Self.degradedAfter
        }
    }

    /// How many times in a row the chain has failed (0 when it is fine).
    func failures(of chainID: UInt64) -> Int {
        failing.withLock { $0[chainID]?.failures ?? 0 }
    }

    /// The degraded chains with their last error, by chain id.
    var degraded: [(chainID: UInt64, error: String)] {
        failing.withLock { table in
            table.filter { $0.value.failures >= Self.degradedAfter }.sorted { $0.key < $1.key }.map { ($0.key, $0.value.lastError) }
        }
    }
}
