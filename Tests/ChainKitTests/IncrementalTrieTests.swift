import ChainKit
import Testing

@Suite("Incremental Merkle Patricia trie")
struct IncrementalTrieTests {
    /// SplitMix64: the same changes for a seed on every run.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Random sets, updates and removals; after every few the root must be the one the one-pass
    /// build computes over the same entries. Two-byte keys drawn from few values make shared
    /// prefixes, extension splits and branch collapses frequent; 32-byte keys are the state trie's.
    @Test("the root after any sequence of changes is the one-pass root of the same entries", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func randomChanges(seed: UInt64) {
        var rng = SeededGenerator(state: seed)
        var trie = IncrementalTrie()
        var model: [[UInt8]: [UInt8]] = [:]
        let keyLength = seed % 2 == 0 ? 2 : 32
        for step in 0..<500 {
            let key: [UInt8]
            if !model.isEmpty && Int.random(in: 0..<3, using: &rng) == 0 {
                key = model.keys.sorted { $0.lexicographicallyPrecedes($1) }.randomElement(using: &rng)!
            } else {
                key = (0..<keyLength).map { _ in UInt8.random(in: 0...(keyLength == 2 ? 7 : 255), using: &rng) }
            }
            let remove = Int.random(in: 0..<3, using: &rng) == 0
            let value: [UInt8] = remove ? [] : (0..<Int.random(in: 1...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            trie.set(key, value)
            model[key] = value.isEmpty ? nil : value
            if step % 5 == 0 || step == 499 {
                let entries = model.map { (key: $0.key, value: $0.value) }
                let expected = MerklePatriciaTrie.root(entries)
                #expect(trie.rootHash == expected, "seed \(seed), step \(step)")
                #expect(trie.count == model.count)
                #expect(IncrementalTrie(entries).rootHash == expected, "seed \(seed), step \(step): the bulk build")
            }
        }
    }

    @Test("a copy changed afterwards leaves the original's root as it was; emptied, the root is the empty trie's")
    func copiesAreIndependent() {
        let entries = (0..<50).map { i in (key: Keccak256.hash([UInt8(i)]), value: [UInt8(i), 1]) }
        let original = IncrementalTrie(entries)
        var copy = original
        copy.set(entries[3].key, [9, 9])
        copy.set(entries[4].key, [])
        #expect(original.rootHash == MerklePatriciaTrie.root(entries))
        #expect(copy.rootHash != original.rootHash)
        for entry in entries { copy.set(entry.key, []) }
        #expect(copy.rootHash == MerklePatriciaTrie.emptyRoot && copy.count == 0)
    }
}
