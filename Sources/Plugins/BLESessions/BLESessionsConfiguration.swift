public import HubKernel

/// The rail's `config` object in `plugins.json`, every member optional:
///
/// ```json
/// { "id": "ble-sessions", "config": { "default_asset": "EUR", "session_ttl_seconds": 300,
///   "lock_ttl_seconds": 60, "eid_rotation_seconds": 60, "gotchu_compatible": false } }
/// ```
public struct BLESessionsConfiguration: Sendable, Equatable {
    /// Lifetime of a session when the request names none (Gotchu: 5 minutes).
    public var sessionTTLSeconds = 300
    /// The longest lifetime a request may ask for.
    public var maxSessionTTLSeconds = 3600
    /// How long a payer's lock (and its hold) lasts before the session reopens.
    public var lockTTLSeconds = 60
    /// How often an open session gets a new EID; 0 turns automatic rotation off.
    public var eidRotationSeconds = 60
    /// How long a replaced EID still resolves, for scanners that read the old advertisement.
    public var eidGraceSeconds = 10
    /// The asset of sessions that name none, and of the Gotchu surface's integer cents.
    public var defaultAsset: AssetCode?
    /// The Gotchu-compatible routes under `/gotchu` (off by default).
    public var gotchuCompatible = false
    /// How often the sweeper expires sessions and locks and rotates EIDs.
    public var sweepIntervalMilliseconds = 500
    /// Unauthenticated resolves per client: a burst, then this many per minute.
    public var resolvesPerMinute = 120

    /// The resolve limit as documented (README, OpenAPI): a bucket per client address refilled at
    /// `resolves_per_minute`, holding a quarter of it (at least 10) for bursts.
    public var resolveRule: RateLimiter.Rule {
        let perMinute = Double(resolvesPerMinute)
        return RateLimiter.Rule(burst: max(10, (perMinute / 4).rounded(.down)), refillPerSecond: perMinute / 60)
    }

    public init() {}

    public init(_ config: PluginConfig) throws {
        let raw = try config.decode(Raw.self, knownKeys: Raw.knownKeys)
        func range(_ value: Int?, _ field: String, _ bounds: ClosedRange<Int>, unit: String) throws -> Int? {
            guard let value else { return nil }
            guard bounds.contains(value) else {
                throw PluginConfigError(field: field, message: "must be \(bounds.lowerBound) to \(bounds.upperBound) \(unit), got \(value)")
            }
            return value
        }
        maxSessionTTLSeconds = try range(raw.maxSessionTtlSeconds, "max_session_ttl_seconds", 10...86_400, unit: "seconds") ?? maxSessionTTLSeconds
        sessionTTLSeconds = try range(raw.sessionTtlSeconds, "session_ttl_seconds", 10...maxSessionTTLSeconds, unit: "seconds") ?? sessionTTLSeconds
        guard sessionTTLSeconds <= maxSessionTTLSeconds else {
            throw PluginConfigError(field: "session_ttl_seconds", message: "must not exceed max_session_ttl_seconds (\(maxSessionTTLSeconds))")
        }
        lockTTLSeconds = try range(raw.lockTtlSeconds, "lock_ttl_seconds", 5...3600, unit: "seconds") ?? lockTTLSeconds
        eidRotationSeconds = try range(raw.eidRotationSeconds, "eid_rotation_seconds", 0...86_400, unit: "seconds") ?? eidRotationSeconds
        if eidRotationSeconds != 0 && eidRotationSeconds < 5 {
            throw PluginConfigError(field: "eid_rotation_seconds", message: "must be 0 (off) or at least 5 seconds, got \(eidRotationSeconds)")
        }
        eidGraceSeconds = try range(raw.eidGraceSeconds, "eid_grace_seconds", 0...300, unit: "seconds") ?? eidGraceSeconds
        sweepIntervalMilliseconds =
            try range(raw.sweepIntervalMs, "sweep_interval_ms", 10...60_000, unit: "milliseconds") ?? sweepIntervalMilliseconds
        resolvesPerMinute = try range(raw.resolvesPerMinute, "resolves_per_minute", 1...100_000, unit: "requests") ?? resolvesPerMinute
        if let code = raw.defaultAsset {
            guard let asset = AssetCode(code) else {
                throw PluginConfigError(field: "default_asset", message: "\"\(code)\" is not an asset code")
            }
            defaultAsset = asset
        }
        gotchuCompatible = raw.gotchuCompatible ?? false
        if gotchuCompatible && defaultAsset == nil {
            throw PluginConfigError(field: "default_asset", message: "the Gotchu-compatible surface counts integer cents of one asset: name it here")
        }
    }

    var sweepInterval: Duration { .milliseconds(sweepIntervalMilliseconds) }

    private struct Raw: Decodable {
        var sessionTtlSeconds: Int?
        var maxSessionTtlSeconds: Int?
        var lockTtlSeconds: Int?
        var eidRotationSeconds: Int?
        var eidGraceSeconds: Int?
        var defaultAsset: String?
        var gotchuCompatible: Bool?
        var sweepIntervalMs: Int?
        var resolvesPerMinute: Int?

        static let knownKeys: Set<String> = [
            "session_ttl_seconds", "max_session_ttl_seconds", "lock_ttl_seconds", "eid_rotation_seconds", "eid_grace_seconds",
            "default_asset", "gotchu_compatible", "sweep_interval_ms", "resolves_per_minute",
        ]
    }
}
