import Foundation

/// Identity keeps times as the ledger does (nanoseconds since the Unix epoch in a `{bigint}`
/// column, from the injected ``LedgerClock``) and shows them as `Date`.
extension LedgerTimestamp {
    var date: Date { Date(timeIntervalSince1970: Double(nanoseconds) / 1_000_000_000) }

    /// Whole seconds, as JWT claims carry them.
    var wholeSeconds: Date { Date(timeIntervalSince1970: Double(nanoseconds / 1_000_000_000)) }
}

extension SQLRow {
    func timestamp(_ name: String) throws -> LedgerTimestamp { try decode(name) }
    func optionalTimestamp(_ name: String) throws -> LedgerTimestamp? { try decode(name) }
}
