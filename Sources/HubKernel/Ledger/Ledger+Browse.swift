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
        let cursor = Int64(bitPattern: after?.nanoseconds ?? 0)
        let organiser: String = if case .organisedBy(let id) = coverage { id } else { "" }
        let pattern = search.map { "%" + Self.escapeLike($0.lowercased()) + "%" } ?? ""
        return try await database.read { connection in
            try connection.query(
                LedgerStore.selectAccounts + """
                     WHERE created_at > $1
                     AND ($2 = '' OR asset = $2)
                     AND ($3 = '' OR asset IN (SELECT code FROM ledger_assets WHERE organiser_id = $3))
                     AND ($4 = '' OR lower(owner_id) LIKE $4 ESCAPE '\\' OR (owner_kind = 'user' AND owner_id IN (
                         SELECT id FROM hub_users WHERE lower(email) LIKE $4 ESCAPE '\\' OR lower(display_name) LIKE $4 ESCAPE '\\')))
                     ORDER BY created_at LIMIT $5
                    """,
                [.int(cursor), .text(asset?.rawValue ?? ""), .text(organiser), .text(pattern), .int(Int64(limit))]
            ).map(LedgerStore.account)
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
        let organiser: String = if case .organisedBy(let id) = coverage { id } else { "" }
        let upper = min(before?.nanoseconds ?? UInt64(Int64.max), until?.nanoseconds ?? UInt64(Int64.max))
        return try await database.read { connection in
            try connection.query(
                LedgerStore.selectTransfers + """
                     WHERE timestamp < $1 AND timestamp >= $2
                     AND ($3 = '' OR asset = $3)
                     AND ($4 = '' OR ref_rail = $4)
                     AND ($5 = '' OR asset IN (SELECT code FROM ledger_assets WHERE organiser_id = $5))
                     ORDER BY timestamp DESC LIMIT $6
                    """,
                [
                    .int(Int64(clamping: upper)), .int(Int64(clamping: since?.nanoseconds ?? 0)), .text(asset?.rawValue ?? ""),
                    .text(rail ?? ""), .text(organiser), .int(Int64(limit)),
                ]
            ).map(LedgerStore.transfer)
        }
    }

    /// `%`, `_` and `\` matched as themselves in a LIKE pattern.
    static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }
}
