import HubKernel

/// The tip jar's `config` object in `plugins.json`, every member optional:
///
/// ```json
/// { "id": "tip-jar", "enabled": true, "config": { "max_title_length": 80, "close_check_interval_ms": 1000 } }
/// ```
struct TipJarConfiguration: Sendable, Equatable {
    /// The longest jar title, in characters.
    var maxTitleLength = 80
    /// How often the closer looks for jars whose `closes_at` has passed.
    var closeCheckIntervalMilliseconds = 1000

    var closeCheckInterval: Duration { .milliseconds(closeCheckIntervalMilliseconds) }

    init() {}

    /// Decodes and checks `config`. `PluginConfig.decode` already refuses unknown members and
    /// mistyped values (naming the member); the ranges are checked here, naming it the same way.
    init(_ config: PluginConfig) throws {
        let raw = try config.decode(Raw.self, knownKeys: Raw.knownKeys)
        if let value = raw.maxTitleLength {
            guard (1...500).contains(value) else {
                throw PluginConfigError(field: "max_title_length", message: "must be 1 to 500 characters, got \(value)")
            }
            maxTitleLength = value
        }
        if let value = raw.closeCheckIntervalMs {
            guard (10...3_600_000).contains(value) else {
                throw PluginConfigError(field: "close_check_interval_ms", message: "must be 10 to 3600000 milliseconds, got \(value)")
            }
            closeCheckIntervalMilliseconds = value
        }
    }

    /// The members as written; `nil` keeps the default. Names are the camel-case form of the
    /// `snake_case` keys because `PluginConfig.decode` converts them.
    private struct Raw: Decodable {
        var maxTitleLength: Int?
        var closeCheckIntervalMs: Int?

        static let knownKeys: Set<String> = ["max_title_length", "close_check_interval_ms"]
    }
}
