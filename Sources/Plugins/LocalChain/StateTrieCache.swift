import ChainKit
import Synchronization

/// Each chain's Ethereum state trie as of its head block, kept between blocks, so that sealing or
/// importing a block updates only the accounts the block changed instead of building the trie
/// over every account again (`make bench-chainkit` measures both).
///
/// A trie is handed out only for the head hash it was kept for. A block hash commits to its state
/// root, and the root to every account, so a trie kept for a hash is right for that head whoever
/// sealed it; it may therefore be kept inside the block's unit of work, before the commit. When
/// the unit then fails, the chain's head is still the old hash, which no longer matches, and the
/// next block builds the trie from all accounts once (as after a restart, or after another
/// instance sealed). Memory: about 260 bytes per account (`make bench-chainkit`).
final class StateTrieCache: Sendable {
    private struct Kept {
        var head: String
        var trie: IncrementalTrie
    }

    private let kept = Mutex<[UInt64: Kept]>([:])

    /// The trie of `chainID` at the head block `head` (its hash), when one is kept.
    func trie(chainID: UInt64, head: String) -> IncrementalTrie? {
        kept.withLock { tries in tries[chainID].flatMap { $0.head == head ? $0.trie : nil } }
    }

    /// Keeps `trie` as the trie of `chainID` at the block `head`, replacing the one before.
    func keep(_ trie: IncrementalTrie, chainID: UInt64, head: String) {
        kept.withLock { $0[chainID] = Kept(head: head, trie: trie) }
    }
}
