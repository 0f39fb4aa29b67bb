import HTTPTypes
public import Hummingbird

/// `GET /v1/ledger/stats`: what the console's overview charts draw. Transfers counted and summed
/// per time bucket, asset and rail, and the event log's rate, over one window.
///
/// Admins only: the sums span every account of every asset.
public struct LedgerStatsController: Sendable {
    let ledger: Ledger
    /// At most this many buckets in one answer, so a wide window at a fine bucket cannot make the
    /// server add up a year of minutes.
    static let maximumBuckets: UInt64 = 1_000

    public init(ledger: Ledger) {
        self.ledger = ledger
    }

    public func addRoutes(to v1: RouterGroup<HubRequestContext>) {
        v1.get("ledger/stats", use: stats)
    }

    /// `?bucket=minute|hour|day` (default `hour`), `?since=` and `?until=` (RFC 3339; default: the
    /// 24 buckets up to now).
    @Sendable func stats(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.ledgerRead)
        guard principal.isAdmin else { throw Problem.forbidden("Ledger statistics span every account; they are for admins.") }
        let bucket = try request.query("bucket") { StatsBucket(rawValue: $0) } ?? .hour
        let now = ledger.clock.now()
        // The window's end is rounded up to the end of the current bucket so the last bar is whole.
        let requestedUntil = try request.query("until", Self.timestamp) ?? now
        let until = LedgerTimestamp(nanoseconds: Self.roundUp(requestedUntil.nanoseconds, to: bucket.nanoseconds))
        let defaultSince = until.nanoseconds - min(until.nanoseconds, 24 * bucket.nanoseconds)
        let requestedSince = try request.query("since", Self.timestamp) ?? LedgerTimestamp(nanoseconds: defaultSince)
        let since = LedgerTimestamp(nanoseconds: requestedSince.nanoseconds - requestedSince.nanoseconds % bucket.nanoseconds)
        guard since < until else { throw Problem.invalid("since", "`since` must be before `until`.") }
        guard (until.nanoseconds - since.nanoseconds) / bucket.nanoseconds <= Self.maximumBuckets else {
            throw Problem.invalid("since", "At most \(Self.maximumBuckets) buckets of a \(bucket.rawValue) in one answer.", code: "window_too_wide")
        }
        let volumes = try await ledger.transferVolumes(bucket: bucket, since: since, until: until)
        let rates = try await ledger.database.read { try EventLog.rates(bucket: bucket, since: since, until: until, on: $0) }
        return try context.json(LedgerStatsRepresentation(bucket: bucket, since: since, until: until, volumes: volumes, rates: rates))
    }

    /// An RFC 3339 time in UTC (`Z`), with or without fractional seconds.
    static func timestamp(_ text: String) -> LedgerTimestamp? {
        RFC3339.parse(text)
    }

    static func roundUp(_ value: UInt64, to step: UInt64) -> UInt64 {
        let remainder = value % step
        return remainder == 0 ? value : value + (step - remainder)
    }
}

struct LedgerStatsRepresentation: Encodable, Sendable {
    struct Volume: Encodable, Sendable {
        var start: String
        var asset: String
        var rail: String?
        var count: Int64
        var volume: String
    }

    struct Rate: Encodable, Sendable {
        var start: String
        var count: Int64
    }

    var bucket: String
    var since: String
    var until: String
    var transfers: [Volume]
    var events: [Rate]

    init(bucket: StatsBucket, since: LedgerTimestamp, until: LedgerTimestamp, volumes: [TransferVolume], rates: [EventRate]) {
        self.bucket = bucket.rawValue
        self.since = since.description
        self.until = until.description
        transfers = volumes.map { Volume(start: $0.start.description, asset: $0.asset, rail: $0.rail, count: $0.count, volume: $0.volume) }
        events = rates.map { Rate(start: $0.start, count: $0.count) }
    }
}
