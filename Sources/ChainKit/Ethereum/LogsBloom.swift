/// Ethereum's 2048-bit logs bloom (Yellow Paper §4.3.1): for the address and each topic of every
/// log, three bits are set, each chosen by the low 11 bits of a byte pair (0-1, 2-3, 4-5) of its
/// keccak-256. Receipts and block headers carry it so a client can skip blocks without a match.
public struct LogsBloom: Sendable, Hashable {
    /// 256 bytes, big-endian bit order as Ethereum serialises it.
    public private(set) var bytes = [UInt8](repeating: 0, count: 256)

    public init() {}

    /// Adds one value (an address's 20 bytes or a topic's 32).
    public mutating func insert(_ value: [UInt8]) {
        let hash = Keccak256.hash(value)
        for pair in stride(from: 0, to: 6, by: 2) {
            let bit = (Int(hash[pair]) << 8 | Int(hash[pair + 1])) & 0x7FF
            bytes[255 - bit / 8] |= 1 << UInt8(bit % 8)
        }
    }

    /// Adds a log: its address and every topic.
    public mutating func insert(address: EthereumAddress, topics: [[UInt8]]) {
        insert(address.bytes)
        for topic in topics { insert(topic) }
    }

    /// Sets every bit `other` has (a block's bloom is the union of its receipts').
    public mutating func formUnion(_ other: LogsBloom) {
        for index in bytes.indices { bytes[index] |= other.bytes[index] }
    }

    /// Whether every bit of `value` is set (a possible match; a miss is certain).
    public func mayContain(_ value: [UInt8]) -> Bool {
        var probe = LogsBloom()
        probe.insert(value)
        return zip(probe.bytes, bytes).allSatisfy { $0 & $1 == $0 }
    }
}

extension LocalChainReceipt {
    /// The bloom of this receipt's logs.
    public var bloom: LogsBloom {
        var bloom = LogsBloom()
        for log in logs { bloom.insert(address: log.address, topics: log.topics) }
        return bloom
    }
}
