/// A binary Merkle tree over keccak-256, the commitment the local chain's headers use for their
/// transactions, receipts and state.
///
/// Leaves and inner nodes are domain-separated (`keccak(0x00 ‖ leaf)`, `keccak(0x01 ‖ left ‖ right)`)
/// so a leaf can never pass for a node (the second-preimage trick on plain Merkle trees). An odd
/// node at the end of a level moves up unchanged instead of being paired with itself, which
/// would let two different leaf lists (`[a, b, c]` and `[a, b, c, c]`) share a root (the flaw
/// of Bitcoin's tree, and of LokaalPay's, which pairs an odd node with itself). The empty tree's
/// root is keccak-256 of no bytes.
public enum KeccakMerkle {
    public static let emptyRoot = Keccak256.hash([UInt8]())

    public static func leafHash(_ leaf: [UInt8]) -> [UInt8] {
        var hasher = Keccak256()
        hasher.update([0x00])
        hasher.update(leaf)
        return hasher.finalize()
    }

    public static func nodeHash(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        var hasher = Keccak256()
        hasher.update([0x01])
        hasher.update(left)
        hasher.update(right)
        return hasher.finalize()
    }

    /// The root over `leaves` in the order given.
    public static func root(_ leaves: [[UInt8]]) -> [UInt8] {
        guard !leaves.isEmpty else { return emptyRoot }
        var level = leaves.map(leafHash)
        while level.count > 1 {
            var next: [[UInt8]] = []
            next.reserveCapacity((level.count + 1) / 2)
            var index = 0
            while index + 1 < level.count {
                next.append(nodeHash(level[index], level[index + 1]))
                index += 2
            }
            if index < level.count { next.append(level[index]) }
            level = next
        }
        return level[0]
    }
}
