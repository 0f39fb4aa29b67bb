/// The root hash of a Merkle Patricia trie (Ethereum Yellow Paper, appendix D) over a set of
/// key/value pairs, built in one pass from the sorted keys: state roots, storage roots, and the
/// transaction and receipt tries. (No proofs or incremental updates: only the root.)
public enum MerklePatriciaTrie {
    /// keccak-256 of RLP(""): the root of an empty trie.
    public static let emptyRoot: [UInt8] = Keccak256.hash(RLP.encode(.bytes([])))

    /// The root of the trie holding `entries` (keys distinct; empty values are not stored).
    public static func root(_ entries: [(key: [UInt8], value: [UInt8])]) -> [UInt8] {
        let items = entries.filter { !$0.value.isEmpty }
            .map { (nibbles: $0.key.flatMap { [$0 >> 4, $0 & 0x0F] }, value: $0.value) }
            .sorted { $0.nibbles.lexicographicallyPrecedes($1.nibbles) }
        if items.isEmpty { return emptyRoot }
        return Keccak256.hash(RLP.encode(node(items[...], depth: 0)))
    }

    private typealias Item = (nibbles: [UInt8], value: [UInt8])

    private static func node(_ items: ArraySlice<Item>, depth: Int) -> RLPItem {
        if items.count == 1, let only = items.first {
            return .list([.bytes(hexPrefix(only.nibbles[depth...], leaf: true)), .bytes(only.value)])
        }
        // A shared run of nibbles becomes an extension node.
        let first = items.first!.nibbles
        var shared = 0
        while items.allSatisfy({ $0.nibbles.count > depth + shared && $0.nibbles[depth + shared] == first[depth + shared] }) {
            shared += 1
        }
        if shared > 0 {
            return .list([.bytes(hexPrefix(first[depth..<(depth + shared)], leaf: false)), reference(node(items, depth: depth + shared))])
        }
        var children = [RLPItem](repeating: .bytes([]), count: 17)
        var rest = items
        if let ending = rest.first, ending.nibbles.count == depth {
            children[16] = .bytes(ending.value)
            rest = rest.dropFirst()
        }
        var start = rest.startIndex
        while start < rest.endIndex {
            let nibble = rest[start].nibbles[depth]
            var end = start
            while end < rest.endIndex && rest[end].nibbles[depth] == nibble { end += 1 }
            children[Int(nibble)] = reference(node(rest[start..<end], depth: depth + 1))
            start = end
        }
        return .list(children)
    }

    /// A child is embedded when its encoding is under 32 bytes, else referred to by hash.
    private static func reference(_ node: RLPItem) -> RLPItem {
        let encoded = RLP.encode(node)
        return encoded.count < 32 ? node : .bytes(Keccak256.hash(encoded))
    }

    /// Hex-prefix encoding of a nibble path with the leaf flag.
    private static func hexPrefix(_ nibbles: ArraySlice<UInt8>, leaf: Bool) -> [UInt8] {
        let flag: UInt8 = leaf ? 2 : 0
        var out: [UInt8]
        var rest = nibbles
        if nibbles.count % 2 == 1 {
            out = [(flag + 1) << 4 | rest.first!]
            rest = rest.dropFirst()
        } else {
            out = [flag << 4]
        }
        while let high = rest.first {
            out.append(high << 4 | rest[rest.index(after: rest.startIndex)])
            rest = rest.dropFirst(2)
        }
        return out
    }
}
