import Foundation

/// Hub-wide listings for the console and integrations: every account (of assets an organiser
/// runs, for an organiser), searchable by owner, and every transfer, newest first.
extension Ledger {
    /// Which assets a listing covers: all of them (admins) or those a user organises.
    public enum Coverage: Sendable {
        case everything
        case organisedBy(String)
    }

    /// Accounts in creation order after `after`, at most `limit`: of one asset when given, and
    /// when `search` is given, accounts owned by a user whose id, e-mail or display name contains
    /// it (case-insensitive), or whose owner id does.
    public func accounts(
        covering coverage: Coverage,
        asset: AssetCode?,
        search: String?,
        after: LedgerTimestamp?,
        limit: Int
    ) async throws -> [Account] {
        let organiser: String? = if case .organisedBy(let id) = coverage { id } else { nil }
        let pattern = search.map { "%" + Self.escapeLike($0.lowercased()) + "%" }
        return try await database.read { connection in
            try LedgerStore.accounts(organisedBy: organiser, asset: asset, matching: pattern, after: after, limit: limit, on: connection)
        }
    }

    /// Transfers newest first, before the cursor `before` (a timestamp), at most `limit`: of one
    /// asset or rail (`ref.rail`) when given, within `since..<until` when given.
    public func transfers(
        covering coverage: Coverage,
        asset: AssetCode?,
        rail: String?,
        since: LedgerTimestamp?,
        until: LedgerTimestamp?,
        before: LedgerTimestamp?,
        limit: Int
    ) async throws -> [Transfer] {
        let organiser: String? = if case .organisedBy(let id) = coverage { id } else { nil }
        let latest = LedgerTimestamp(nanoseconds: UInt64(Int64.max))
        let upper = min(before ?? latest, until ?? latest)
        return try await database.read { connection in
            try LedgerStore.transfers(organisedBy: organiser, asset: asset, rail: rail, since: since, before: upper, limit: limit, on: connection)
        }
    }

    /// `%`, `_` and `\` matched as themselves in a LIKE pattern.
    static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }
}
