/// Which event types an endpoint receives: exact dotted types (`ledger.transfer.posted`) or
/// prefixes ending in `.*` (`ledger.transfer.*` matches every type that starts `ledger.transfer.`).
/// No patterns at all means every type.
///
/// Patterns are checked when they are stored, not when they are used, so a bad filter is a
/// `400` for whoever wrote it rather than an endpoint that silently receives nothing.
struct WebhookEventFilter: Sendable, Equatable {
    static let maxPatterns = 100
    static let maxPatternLength = 200

    let patterns: [String]
    /// The matching itself is the event log's (`GET /v1/events?type=` reads the same patterns).
    private let filter: EventFilter

    /// Validates `patterns` (and drops repeats, keeping the first).
    /// - Throws: ``WebhookError`` `invalid_filter` on field `event_types`.
    init(validating patterns: [String]) throws {
        guard patterns.count <= Self.maxPatterns else {
            throw WebhookError(.invalidFilter, "at most \(Self.maxPatterns) event types per endpoint", field: "event_types")
        }
        var seen = Set<String>()
        var kept: [String] = []
        for pattern in patterns where seen.insert(pattern).inserted {
            try Self.check(pattern)
            kept.append(pattern)
        }
        self.init(trusted: kept)
    }

    /// Patterns read back from the database, validated when they were written.
    init(trusted patterns: [String]) {
        self.patterns = patterns
        self.filter = EventFilter(trusted: patterns)
    }

    func matches(_ type: String) -> Bool { filter.matches(type) }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.patterns == rhs.patterns }

    /// A pattern is dot-separated segments of `[A-Za-z0-9_-]`, the last of which may be `*`.
    private static func check(_ pattern: String) throws {
        let invalid = WebhookError(
            .invalidFilter,
            "'\(pattern.prefix(Self.maxPatternLength))' is not an event type: use dotted segments of letters, digits, '_' or '-', optionally ending in '.*'",
            field: "event_types"
        )
        guard !pattern.isEmpty, pattern.utf8.count <= Self.maxPatternLength else { throw invalid }
        let segments = pattern.split(separator: ".", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            if segment == "*" && index == segments.count - 1 && index > 0 { continue }
            guard !segment.isEmpty, segment.utf8.allSatisfy(EventFilter.isTypeCharacter) else { throw invalid }
        }
    }
}
