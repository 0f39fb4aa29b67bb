import HubKernel
import Synchronization

/// Payees' wallets this process has seen exist. Opening a session needs its payee's wallet, and
/// with it its asset; the ledger never deletes either, so once one is seen it need not be read
/// again: a payee opening session after session costs no reads for them. Bounded: when full it
/// starts over, which costs a read per payee again, never a wrong answer.
final class KnownWallets: Sendable {
    private let ids = Mutex<Set<AccountID>>([])
    private let limit: Int

    init(limit: Int = 100_000) {
        self.limit = limit
    }

    func contains(_ id: AccountID) -> Bool {
        ids.withLock { $0.contains(id) }
    }

    func insert(_ id: AccountID) {
        ids.withLock { ids in
            if ids.count >= limit { ids.removeAll(keepingCapacity: true) }
            ids.insert(id)
        }
    }
}
