/// A Merkle Patricia trie (Yellow Paper, appendix D) kept from one block to the next: changing a
/// few keys re-encodes and re-hashes only the nodes on their paths, where
/// ``MerklePatriciaTrie/root(_:)`` rebuilds the whole trie. Its root is always the one
/// ``MerklePatriciaTrie`` computes over the same entries.
///
/// Keys all have one length (the secure tries hash theirs: 32 bytes), so no key is a prefix of
/// another and branch nodes never hold a value. Nodes are immutable and shared between copies: a
/// copy updated for a block that then fails to commit leaves the original as it was.
public struct IncrementalTrie: Sendable {
    private var top: Node?
    /// The length of every key, fixed by the first one set.
    public private(set) var keyLength: Int?
    public private(set) var count = 0

    public init() {}

    /// A trie holding `entries` (keys distinct and of one length; empty values are not stored),
    /// built in one pass from the sorted keys.
    public init(_ entries: [(key: [UInt8], value: [UInt8])]) {
        let items = entries.filter { !$0.value.isEmpty }
            .map { (path: Self.nibbles($0.key), value: $0.value) }
            .sorted { $0.path.lexicographicallyPrecedes($1.path) }
        guard let first = items.first else { return }
        precondition(items.allSatisfy { $0.path.count == first.path.count }, "IncrementalTrie: keys of different lengths")
        keyLength = first.path.count / 2
        count = items.count
        top = Self.build(items[...], depth: 0)
    }

    /// The root hash: keccak-256 of the root node's encoding (``MerklePatriciaTrie/emptyRoot`` when empty).
    public var rootHash: [UInt8] {
        guard let top else { return MerklePatriciaTrie.emptyRoot }
        switch top.reference {
        case .bytes(let hash): return hash
        case .list: return Keccak256.hash(RLP.encode(top.reference))
        }
    }

    /// Sets `key` to `value`; an empty value removes the key.
    public mutating func set(_ key: [UInt8], _ value: [UInt8]) {
        if let keyLength {
            precondition(key.count == keyLength, "IncrementalTrie: a \(key.count)-byte key in a trie of \(keyLength)-byte keys")
        } else if !value.isEmpty {
            keyLength = key.count
        }
        let path = Self.nibbles(key)[...]
        if value.isEmpty {
            guard let top else { return }
            let (node, removed) = Self.removing(path, from: top)
            self.top = node
            if removed { count -= 1 }
        } else {
            let (node, added) = Self.setting(path, value, in: top)
            top = node
            if added { count += 1 }
        }
    }

    // MARK: Nodes

    /// One node, its reference computed once when it is made. Only the reference is kept (for
    /// most nodes a 32-byte hash), not the encoding: a state trie holds one node per account.
    final class Node: Sendable {
        enum Kind: Sendable {
            case leaf(path: ArraySlice<UInt8>, value: [UInt8])
            case `extension`(path: ArraySlice<UInt8>, child: Node)
            case branch([Node?])
        }

        let kind: Kind
        /// How its parent refers to it: the node itself when its encoding is under 32 bytes, else
        /// the hash of its encoding (which is the root hash when it is the root).
        let reference: RLPItem

        init(_ kind: Kind) {
            self.kind = kind
            let item: RLPItem
            switch kind {
            case .leaf(let path, let value):
                item = .list([.bytes(IncrementalTrie.hexPrefix(path, leaf: true)), .bytes(value)])
            case .extension(let path, let child):
                item = .list([.bytes(IncrementalTrie.hexPrefix(path, leaf: false)), child.reference])
            case .branch(let children):
                item = .list(children.map { $0?.reference ?? .bytes([]) } + [.bytes([])])
            }
            let encoded = RLP.encode(item)
            reference = encoded.count < 32 ? item : .bytes(Keccak256.hash(encoded))
        }
    }

    private static func leaf(_ path: ArraySlice<UInt8>, _ value: [UInt8]) -> Node { Node(.leaf(path: path, value: value)) }

    /// `child` under `path`: an extension, or the child itself for an empty path.
    private static func extended(_ path: ArraySlice<UInt8>, _ child: Node) -> Node {
        if path.isEmpty { return child }
        // Paths join: an extension or leaf below an extension takes its path.
        switch child.kind {
        case .leaf(let rest, let value): return leaf(ArraySlice(Array(path) + rest), value)
        case .extension(let rest, let grandchild): return Node(.extension(path: ArraySlice(Array(path) + rest), child: grandchild))
        case .branch: return Node(.extension(path: path, child: child))
        }
    }

    private static func build(_ items: ArraySlice<(path: [UInt8], value: [UInt8])>, depth: Int) -> Node {
        let first = items.first!
        if items.count == 1 { return leaf(first.path[depth...], first.value) }
        let last = items.last!
        // Sorted: the nibbles every item shares are the ones the first and last share.
        var shared = 0
        while first.path[depth + shared] == last.path[depth + shared] { shared += 1 }
        var children = [Node?](repeating: nil, count: 16)
        var start = items.startIndex
        while start < items.endIndex {
            let nibble = items[start].path[depth + shared]
            var end = start
            while end < items.endIndex && items[end].path[depth + shared] == nibble { end += 1 }
            children[Int(nibble)] = build(items[start..<end], depth: depth + shared + 1)
            start = end
        }
        return extended(first.path[depth..<(depth + shared)], Node(.branch(children)))
    }

    /// The node after setting `path` to `value` below `node`, and whether the key is new.
    private static func setting(_ path: ArraySlice<UInt8>, _ value: [UInt8], in node: Node?) -> (Node, Bool) {
        guard let node else { return (leaf(path, value), true) }
        switch node.kind {
        case .leaf(let own, let old):
            if own.elementsEqual(path) { return (old == value ? node : leaf(path, value), false) }
            return (split(own, keeping: { leaf($0, old) }, path, value), true)
        case .extension(let own, let child):
            let shared = commonPrefix(own, path)
            if shared == own.count {
                let (updated, added) = setting(path.dropFirst(shared), value, in: child)
                return (updated === child ? node : Node(.extension(path: own, child: updated)), added)
            }
            return (split(own, keeping: { extended($0, child) }, path, value), true)
        case .branch(var children):
            let index = Int(path.first!)
            let (updated, added) = setting(path.dropFirst(), value, in: children[index])
            if updated === children[index] { return (node, added) }
            children[index] = updated
            return (Node(.branch(children)), added)
        }
    }

    /// A branch where the paths `own` (of the existing node, remade for its remaining path by
    /// `keeping`) and `path` (a new leaf) part, under an extension of what they share.
    private static func split(
        _ own: ArraySlice<UInt8>,
        keeping: (ArraySlice<UInt8>) -> Node,
        _ path: ArraySlice<UInt8>,
        _ value: [UInt8]
    ) -> Node {
        let shared = commonPrefix(own, path)
        var children = [Node?](repeating: nil, count: 16)
        let ownRest = own.dropFirst(shared)
        let newRest = path.dropFirst(shared)
        children[Int(ownRest.first!)] = keeping(ownRest.dropFirst())
        children[Int(newRest.first!)] = leaf(newRest.dropFirst(), value)
        return extended(path.prefix(shared), Node(.branch(children)))
    }

    /// The node after removing `path` below `node` (`nil` when nothing is left), and whether it was there.
    private static func removing(_ path: ArraySlice<UInt8>, from node: Node) -> (Node?, Bool) {
        switch node.kind {
        case .leaf(let own, _):
            return own.elementsEqual(path) ? (nil, true) : (node, false)
        case .extension(let own, let child):
            guard path.starts(with: own) else { return (node, false) }
            let (updated, removed) = removing(path.dropFirst(own.count), from: child)
            guard removed else { return (node, false) }
            // A branch keeps at least two children, so the child never disappears.
            return (extended(own, updated!), true)
        case .branch(var children):
            let index = Int(path.first!)
            guard let child = children[index] else { return (node, false) }
            let (updated, removed) = removing(path.dropFirst(), from: child)
            guard removed else { return (node, false) }
            children[index] = updated
            let left = children.indices.filter { children[$0] != nil }
            // A branch left with one child becomes that child under its nibble.
            if left.count == 1, let only = left.first {
                return (extended([UInt8(only)][...], children[only]!), true)
            }
            return (Node(.branch(children)), true)
        }
    }

    private static func commonPrefix(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
        var count = 0
        for (x, y) in zip(a, b) {
            guard x == y else { break }
            count += 1
        }
        return count
    }

    private static func nibbles(_ key: [UInt8]) -> [UInt8] { key.flatMap { [$0 >> 4, $0 & 0x0F] } }

    /// Hex-prefix encoding of a nibble path with the leaf flag.
    static func hexPrefix(_ nibbles: ArraySlice<UInt8>, leaf: Bool) -> [UInt8] {
        let flag: UInt8 = leaf ? 2 : 0
        var out: [UInt8] = []
        out.reserveCapacity(nibbles.count / 2 + 1)
        var rest = nibbles
        if nibbles.count % 2 == 1 {
            out.append((flag + 1) << 4 | rest.first!)
            rest = rest.dropFirst()
        } else {
            out.append(flag << 4)
        }
        while let high = rest.first {
            out.append(high << 4 | rest[rest.index(after: rest.startIndex)])
            rest = rest.dropFirst(2)
        }
        return out
    }
}
