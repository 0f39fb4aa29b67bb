/// The root hash of a Merkle Patricia trie (Ethereum Yellow Paper, appendix D) over a set of
/// key/value pairs, built in one pass from the sorted keys: state roots, storage roots, and the
/// transaction and receipt tries; and the proof of one key (EIP-1186). ``IncrementalTrie`` keeps a
/// trie between changes instead.
public enum MerklePatriciaTrie {
    /// keccak-256 of RLP(""): the root of an empty trie.
    public static let emptyRoot: [UInt8] = Keccak256.hash(RLP.encode(.bytes([])))

    /// The root of the trie holding `entries` (keys distinct; empty values are not stored).
    public static func root(_ entries: [(key: [UInt8], value: [UInt8])]) -> [UInt8] {
        let items = entries.filter { !$0.value.isEmpty }
            .map { (nibbles: $0.key.flatMap { [$0 >> 4, $0 & 0x0F] }, value: $0.value) }
            .sorted { $0.nibbles.lexicographicallyPrecedes($1.nibbles) }
        if items.isEmpty { return emptyRoot }
        var unused: [[UInt8]] = []
        return Keccak256.hash(RLP.encode(node(items[...], depth: 0, target: nil, proof: &unused)))
    }

    /// The proof of `key` (present or absent) in the trie holding `entries`: the RLP encodings of
    /// the nodes on the path from the root towards the key, root first, each node that its parent
    /// refers to by hash (smaller ones are inside their parent's encoding), as EIP-1186's
    /// `eth_getProof` and geth give them. Empty for an empty trie.
    public static func proof(_ entries: [(key: [UInt8], value: [UInt8])], key: [UInt8]) -> [[UInt8]] {
        let items = entries.filter { !$0.value.isEmpty }
            .map { (nibbles: $0.key.flatMap { [$0 >> 4, $0 & 0x0F] }, value: $0.value) }
            .sorted { $0.nibbles.lexicographicallyPrecedes($1.nibbles) }
        if items.isEmpty { return [] }
        var proof: [[UInt8]] = []
        let root = node(items[...], depth: 0, target: key.flatMap { [$0 >> 4, $0 & 0x0F] }, proof: &proof)
        // Children were recorded before their parents; the root is always part of the proof.
        let encodedRoot = RLP.encode(root)
        if encodedRoot.count < 32 { proof.append(encodedRoot) }
        return proof.reversed()
    }

    private typealias Item = (nibbles: [UInt8], value: [UInt8])

    /// Builds the node over `items` at `depth`. With a `target` path, the nodes on the way to it
    /// that are referred to by hash are appended to `proof` (deepest first).
    private static func node(_ items: ArraySlice<Item>, depth: Int, target: [UInt8]?, proof: inout [[UInt8]]) -> RLPItem {
        let built = buildNode(items, depth: depth, target: target, proof: &proof)
        if target != nil {
            let encoded = RLP.encode(built)
            if encoded.count >= 32 { proof.append(encoded) }
        }
        return built
    }

    private static func buildNode(_ items: ArraySlice<Item>, depth: Int, target: [UInt8]?, proof: inout [[UInt8]]) -> RLPItem {
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
            // The target goes on only if it follows the extension's whole path.
            let follows = target.map { $0.count >= depth + shared && $0[depth..<(depth + shared)] == first[depth..<(depth + shared)] } ?? false
            let child = node(items, depth: depth + shared, target: follows ? target : nil, proof: &proof)
            return .list([.bytes(hexPrefix(first[depth..<(depth + shared)], leaf: false)), reference(child)])
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
            let onPath = target.map { $0.count > depth && $0[depth] == nibble } ?? false
            children[Int(nibble)] = reference(node(rest[start..<end], depth: depth + 1, target: onPath ? target : nil, proof: &proof))
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
