import Synchronization

/// Asset-code prefixes that rails reserve for the assets they create (the local chain's `EVT-`).
///
/// A code in a reserved range is created only by its rail: otherwise anybody could create
/// `EVT-8888` first and either block chain 8888 or, worse, have the chain adopt an asset whose
/// money was minted outside it. Reservations are made once, when the rails start, and never
/// removed while the process runs.
final class AssetCodeReservations: Sendable {
    private let prefixes = Mutex<[(prefix: String, rail: String)]>([])

    init() {}

    /// Reserves every code starting with `prefix` for `rail`. Reserving the same range for the same
    /// rail again is harmless; two rails claiming overlapping ranges is a programming error.
    func reserve(prefix: String, rail: String) {
        prefixes.withLock { list in
            if let clash = list.first(where: { $0.prefix.hasPrefix(prefix) || prefix.hasPrefix($0.prefix) }) {
                precondition(clash.rail == rail, "asset code prefix \(prefix) of rail \(rail) overlaps \(clash.prefix) of rail \(clash.rail)")
                if clash.prefix == prefix { return }
            }
            list.append((prefix, rail))
        }
    }

    /// The rail that reserved `code`'s range, if any.
    func rail(reserving code: AssetCode) -> String? {
        prefixes.withLock { list in list.first { code.rawValue.hasPrefix($0.prefix) }?.rail }
    }

    /// The reserved prefix `code` falls in, if any.
    func prefix(reserving code: AssetCode) -> String? {
        prefixes.withLock { list in list.first { code.rawValue.hasPrefix($0.prefix) }?.prefix }
    }
}
