/// A Recursive Length Prefix item: a byte string or a list of items.
public enum RLPItem: Sendable, Hashable {
    case bytes([UInt8])
    case list([RLPItem])

    /// An unsigned integer as RLP encodes it: big-endian, no leading zeros, zero as the empty string.
    public static func uint(_ value: UInt256) -> RLPItem { .bytes(value.minimalBigEndianBytes) }
    public static func uint(_ value: UInt64) -> RLPItem { .uint(UInt256(value)) }

    /// The bytes of a string item.
    public func bytes(_ what: @autoclosure () -> String) throws -> [UInt8] {
        guard case .bytes(let bytes) = self else { throw ChainKitError(.invalidRLP, "\(what()) must be a string, found a list") }
        return bytes
    }

    /// The items of a list item.
    public func list(_ what: @autoclosure () -> String) throws -> [RLPItem] {
        guard case .list(let items) = self else { throw ChainKitError(.invalidRLP, "\(what()) must be a list, found a string") }
        return items
    }

    /// A canonical unsigned integer: no leading zero byte (zero is the empty string), at most 32 bytes.
    public func uint256(_ what: @autoclosure () -> String) throws -> UInt256 {
        let bytes = try bytes(what())
        if bytes.first == 0 { throw ChainKitError(.invalidRLP, "\(what()) has a leading zero byte (integers must be minimal)") }
        guard bytes.count <= 32 else { throw ChainKitError(.invalidRLP, "\(what()) is longer than 32 bytes") }
        return try UInt256(bigEndian: bytes)
    }

    /// A canonical unsigned integer that fits in 64 bits.
    public func uint64(_ what: @autoclosure () -> String) throws -> UInt64 {
        let value = try uint256(what())
        guard value.high == 0, value.low <= UInt128(UInt64.max) else {
            throw ChainKitError(.invalidRLP, "\(what()) does not fit in 64 bits")
        }
        return UInt64(value.low)
    }
}

/// RLP encoding and strict decoding (Ethereum Yellow Paper, appendix B).
public enum RLP {
    public static func encode(_ item: RLPItem) -> [UInt8] {
        var out: [UInt8] = []
        append(item, to: &out)
        return out
    }

    private static func append(_ item: RLPItem, to out: inout [UInt8]) {
        switch item {
        case .bytes(let bytes):
            if bytes.count == 1 && bytes[0] < 0x80 {
                out.append(bytes[0])
            } else {
                appendHeader(length: bytes.count, offset: 0x80, to: &out)
                out.append(contentsOf: bytes)
            }
        case .list(let items):
            var payload: [UInt8] = []
            for child in items { append(child, to: &payload) }
            appendHeader(length: payload.count, offset: 0xC0, to: &out)
            out.append(contentsOf: payload)
        }
    }

    private static func appendHeader(length: Int, offset: UInt8, to out: inout [UInt8]) {
        if length <= 55 {
            out.append(offset + UInt8(length))
        } else {
            let lengthBytes = UInt256(length).minimalBigEndianBytes
            out.append(offset + 55 + UInt8(lengthBytes.count))
            out.append(contentsOf: lengthBytes)
        }
    }

    /// Decodes exactly one item that spans all of `bytes`.
    /// - Throws: `invalid_rlp` for truncated input, non-canonical forms (a single byte below 0x80
    ///   with a prefix, a long form for a short payload, a length with leading zeros), items that
    ///   overrun their list, and trailing bytes.
    public static func decode(_ bytes: [UInt8]) throws -> RLPItem {
        guard !bytes.isEmpty else { throw ChainKitError(.invalidRLP, "no item: the input is empty") }
        var offset = 0
        let item = try decodeItem(bytes, &offset, end: bytes.count, depth: 0)
        guard offset == bytes.count else {
            throw ChainKitError(.invalidRLP, "\(bytes.count - offset) trailing byte(s) after a complete item at offset \(offset)")
        }
        return item
    }

    /// Deep nesting is legal RLP but no format here needs it; the bound keeps decoding off the
    /// stack's edge for hostile input.
    static let maximumDepth = 64

    private static func decodeItem(_ bytes: [UInt8], _ offset: inout Int, end: Int, depth: Int) throws -> RLPItem {
        guard depth <= maximumDepth else { throw ChainKitError(.invalidRLP, "lists nested deeper than \(maximumDepth)") }
        guard offset < end else { throw ChainKitError(.invalidRLP, "an item is missing at offset \(offset)") }
        let prefix = bytes[offset]
        let start = offset
        switch prefix {
        case 0x00...0x7F:
            offset += 1
            return .bytes([prefix])
        case 0x80...0xBF:
            let (length, headerSize) = try header(bytes, at: offset, end: end, prefix: prefix, base: 0x80)
            offset += headerSize
            guard length <= end - offset else {
                throw ChainKitError(.invalidRLP, "string at offset \(start) declares \(length) bytes but only \(end - offset) remain")
            }
            let payload = Array(bytes[offset..<offset + length])
            if length == 1 && payload[0] < 0x80 {
                throw ChainKitError(
                    .invalidRLP,
                    "byte 0x\(String(payload[0], radix: 16)) at offset \(start) must be encoded as itself, not with a prefix"
                )
            }
            offset += length
            return .bytes(payload)
        default:
            let (length, headerSize) = try header(bytes, at: offset, end: end, prefix: prefix, base: 0xC0)
            offset += headerSize
            guard length <= end - offset else {
                throw ChainKitError(.invalidRLP, "list at offset \(start) declares \(length) bytes but only \(end - offset) remain")
            }
            let listEnd = offset + length
            var items: [RLPItem] = []
            while offset < listEnd {
                items.append(try decodeItem(bytes, &offset, end: listEnd, depth: depth + 1))
            }
            return .list(items)
        }
    }

    /// Reads a string or list header and returns (payload length, header size).
    private static func header(_ bytes: [UInt8], at offset: Int, end: Int, prefix: UInt8, base: UInt8) throws -> (Int, Int) {
        let short = Int(prefix - base)
        if short <= 55 { return (short, 1) }
        let lengthOfLength = short - 55
        guard lengthOfLength <= end - offset - 1 else {
            throw ChainKitError(.invalidRLP, "the length at offset \(offset) is cut off")
        }
        guard bytes[offset + 1] != 0 else {
            throw ChainKitError(.invalidRLP, "the length at offset \(offset) has a leading zero byte")
        }
        guard lengthOfLength <= 4 else {
            throw ChainKitError(.invalidRLP, "the length at offset \(offset) takes \(lengthOfLength) bytes (over 4 GiB)")
        }
        var length = 0
        for index in 0..<lengthOfLength { length = length << 8 | Int(bytes[offset + 1 + index]) }
        guard length > 55 else {
            throw ChainKitError(
                .invalidRLP,
                "the long form at offset \(offset) is used for a payload of \(length) bytes (≤ 55 must use the short form)"
            )
        }
        return (length, 1 + lengthOfLength)
    }
}
