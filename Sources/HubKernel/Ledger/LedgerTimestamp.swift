import Foundation

#if canImport(Glibc)
    import Glibc
    // Named by module: Dispatch's C module, visible through the HTTP stack, declares it too.
    private typealias SystemTimespec = Glibc.timespec
#else
    import Darwin
    private typealias SystemTimespec = Darwin.timespec
#endif
#if canImport(CoreFoundation)
    import CoreFoundation
#endif

/// Nanoseconds since the Unix epoch, assigned by the ledger and strictly increasing across every
/// transfer it records.
public struct LedgerTimestamp: Hashable, Sendable, Comparable, CustomStringConvertible, SQLBindable, SQLDecodable {
    public let nanoseconds: UInt64
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    public var description: String { RFC3339.format(nanoseconds: nanoseconds) }
    /// Reads the form ``description`` writes (`2026-11-21T09:30:00.123Z`, with 0 to 9 fractional
    /// digits); `nil` for anything else.
    public init?(rfc3339 text: String) {
        guard let parsed = RFC3339.parse(text) else { return nil }
        self = parsed
    }

    /// This time moved by `duration` (clamped at the epoch and at the far end).
    func adding(_ duration: Duration) -> LedgerTimestamp {
        let (seconds, attoseconds) = duration.components
        let delta = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        return LedgerTimestamp(nanoseconds: UInt64(clamping: Int64(bitPattern: nanoseconds) &+ delta))
    }

    public var sqlValue: SQLValue { .int(Int64(bitPattern: nanoseconds)) }
    public init(row: SQLRow, _ index: Int) throws { nanoseconds = UInt64(bitPattern: try row.int(index)) }
}

/// Where the ledger reads the time. Tests use a manual clock to drive expiry.
public struct LedgerClock: Sendable {
    public let now: @Sendable () -> LedgerTimestamp
    public init(now: @escaping @Sendable () -> LedgerTimestamp) { self.now = now }

    /// The system's real-time clock.
    public static let system = LedgerClock {
        var spec = SystemTimespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return LedgerTimestamp(nanoseconds: UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec))
    }
}
