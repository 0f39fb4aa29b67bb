/// How wide one bar of the console's charts is.
public enum StatsBucket: String, Sendable, CaseIterable {
    case minute, hour, day

    public var nanoseconds: UInt64 {
        switch self {
        case .minute: 60_000_000_000
        case .hour: 3_600_000_000_000
        case .day: 86_400_000_000_000
        }
    }

    /// The leading characters of an RFC 3339 time (`2026-11-21T10:05:00.000Z`) that name the
    /// bucket: the event log stores times in that fixed 24-character UTC form, so a prefix is a
    /// bucket and the database can group events without parsing dates.
    ///
    /// The length is statement text, not a bound value: the statement groups by this expression,
    /// and PostgreSQL accepts a selected expression under `GROUP BY` only when the grouped one is
    /// the same text (two parameters are two different expressions to it).
    var timePrefix: SQL {
        switch self {
        case .minute: "substr(time, 1, 16)"
        case .hour: "substr(time, 1, 13)"
        case .day: "substr(time, 1, 10)"
        }
    }
}

/// Money moved in one bucket, in one asset, by one rail.
public struct TransferVolume: Sendable, Equatable {
    /// The bucket's first instant.
    public var start: LedgerTimestamp
    public var asset: String
    /// The rail recorded in the transfers' `ref` (`nil`: made without a reference, e.g. through
    /// the kernel API by hand).
    public var rail: String?
    public var count: Int64
    /// The sum of the amounts as a decimal string: a day of busy transfers can add up past
    /// `UInt128`, so the sum is kept in 256 bits and never in a floating-point number.
    public var volume: String
}

/// Events appended to the log in one bucket.
public struct EventRate: Sendable, Equatable {
    /// The bucket's first instant in RFC 3339 form.
    public var start: String
    public var count: Int64
}

extension Ledger {
    /// Transfers that moved money (`posted`, and `post_pending` for the posted part of a hold)
    /// with a timestamp in `since..<until`, counted and summed per bucket, asset and rail.
    /// Holds and voids move nothing and are left out.
    ///
    /// The amounts are summed here rather than in SQL: SQLite stores them as 16-byte big-endian
    /// blobs it cannot add, and one code path keeps both backends' answers identical. The cost
    /// grows with the transfers in the window: a day of 100,000 transfers (and as many events)
    /// answered in about 0.4 s on SQLite in a debug build on a 2-core machine; a hub far busier
    /// than that would want the sums kept per bucket as transfers commit.
    public func transferVolumes(bucket: StatsBucket, since: LedgerTimestamp, until: LedgerTimestamp) async throws -> [TransferVolume] {
        let rows = try await database.read { connection in
            try connection.query(
                """
                SELECT timestamp, asset, ref_rail, amount FROM ledger_transfers
                WHERE timestamp >= \(since) AND timestamp < \(until) AND kind IN ('posted', 'post_pending')
                ORDER BY timestamp
                """
            )
        }
        struct Key: Hashable {
            var start: UInt64
            var asset: String
            var rail: String?
        }
        var sums: [Key: (count: Int64, volume: WideSum)] = [:]
        var order: [Key] = []
        for row in rows {
            let (timestamp, asset, rail, amount) = try row.decode(LedgerTimestamp.self, String.self, String?.self, UInt128.self)
            let start = timestamp.nanoseconds - timestamp.nanoseconds % bucket.nanoseconds
            let key = Key(start: start, asset: asset, rail: rail)
            if sums[key] == nil { order.append(key) }
            var entry = sums[key] ?? (0, WideSum())
            entry.count += 1
            entry.volume.add(amount)
            sums[key] = entry
        }
        // Rows come oldest first, so first appearance orders buckets by time; ties by asset and rail.
        return order.sorted { ($0.start, $0.asset, $0.rail ?? "") < ($1.start, $1.asset, $1.rail ?? "") }.map { key in
            let entry = sums[key]!
            return TransferVolume(
                start: LedgerTimestamp(nanoseconds: key.start),
                asset: key.asset,
                rail: key.rail,
                count: entry.count,
                volume: entry.volume.description
            )
        }
    }
}

extension EventLog {
    /// Events per bucket with a time in `since..<until`, grouped by the database on the time's
    /// prefix (see ``StatsBucket/timePrefix``). `substr` means the same on both backends.
    static func rates(bucket: StatsBucket, since: LedgerTimestamp, until: LedgerTimestamp, on connection: any SQLConnection) throws -> [EventRate] {
        // Times are stored as RFC 3339 text, so the bounds are compared as text too.
        let rows = try connection.query(
            """
            SELECT \(bucket.timePrefix) AS bucket, count(*) FROM hub_events
            WHERE time >= \(since.description) AND time < \(until.description) GROUP BY \(bucket.timePrefix) ORDER BY 1
            """
        )
        let zero = "0000-01-01T00:00:00.000Z"
        return try rows.map { row in
            let (prefix, count) = try row.decode(String.self, Int64.self)
            return EventRate(start: prefix + zero.dropFirst(prefix.count), count: count)
        }
    }
}

/// An unsigned 256-bit running sum of `UInt128` amounts, printed in decimal.
struct WideSum: Sendable, Equatable, CustomStringConvertible {
    private(set) var high: UInt128 = 0
    private(set) var low: UInt128 = 0

    mutating func add(_ amount: UInt128) {
        let (sum, overflow) = low.addingReportingOverflow(amount)
        low = sum
        if overflow { high += 1 }
    }

    /// Long division by 10^19 (the largest power of ten in a `UInt64`), one 19-digit chunk at a time.
    var description: String {
        if high == 0 { return String(low) }
        let chunk: UInt128 = 10_000_000_000_000_000_000
        var (high, low) = (self.high, self.low)
        var chunks: [UInt128] = []
        while high != 0 || low != 0 {
            let highQuotient = high / chunk
            let (lowQuotient, remainder) = chunk.dividingFullWidth((high: high % chunk, low: low))
            (high, low) = (highQuotient, lowQuotient)
            chunks.append(remainder)
        }
        var text = String(chunks.removeLast())
        for part in chunks.reversed() {
            let digits = String(part)
            text += String(repeating: "0", count: 19 - digits.count) + digits
        }
        return text
    }
}
