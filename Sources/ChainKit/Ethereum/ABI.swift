/// A value of an ABI type. Signed integers are two's complement in 256 bits.
public indirect enum ABIValue: Sendable, Hashable {
    case uint(UInt256)
    case int(UInt256)
    case address(EthereumAddress)
    case bool(Bool)
    case fixedBytes([UInt8])
    case bytes([UInt8])
    case string(String)
    case array([ABIValue])
    case tuple([ABIValue])

    /// A signed integer from its sign and magnitude.
    public static func int(negative: Bool, magnitude: UInt256) -> ABIValue {
        guard negative, !magnitude.isZero else { return .int(magnitude) }
        return .int(UInt256.max.subtractingReportingOverflow(magnitude).partialValue.addingReportingOverflow(UInt256(1)).partialValue)
    }
}

/// Solidity ABI encoding (contract ABI specification): calldata, return data, event data.
public enum ABI {
    /// The 4-byte function selector of a canonical signature such as `transfer(address,uint256)`.
    public static func selector(_ signature: String) -> [UInt8] { Array(Keccak256.hash(Array(signature.utf8)).prefix(4)) }

    /// The first topic of an event with this canonical signature.
    public static func eventTopic(_ signature: String) -> [UInt8] { Keccak256.hash(Array(signature.utf8)) }

    /// Calldata: selector followed by the encoded arguments.
    public static func calldata(_ signature: String, types: [ABIType], values: [ABIValue]) throws -> [UInt8] {
        selector(signature) + (try encode(types, values))
    }

    // MARK: Encoding

    /// Encodes `values` as the tuple of `types`.
    /// - Throws: `out_of_range` when a value does not fit its type (naming the position).
    public static func encode(_ types: [ABIType], _ values: [ABIValue]) throws -> [UInt8] {
        try encode(.tuple(types), .tuple(values), path: "")
    }

    private static func encode(_ type: ABIType, _ value: ABIValue, path: String) throws -> [UInt8] {
        func mismatch() -> ChainKitError { ChainKitError(.outOfRange, "value at \(path.isEmpty ? "top" : path) does not match type \(type)") }
        switch (type, value) {
        case (.uint(let bits), .uint(let v)):
            guard bits == 256 || v < UInt256(low: 0).withBit(bits) else {
                throw ChainKitError(.outOfRange, "\(v) does not fit uint\(bits) at \(path)")
            }
            return v.bigEndianBytes
        case (.int(let bits), .int(let v)):
            guard fitsSigned(v, bits: bits) else { throw ChainKitError(.outOfRange, "value does not fit int\(bits) at \(path)") }
            return v.bigEndianBytes
        case (.address, .address(let a)): return [UInt8](repeating: 0, count: 12) + a.bytes
        case (.bool, .bool(let b)): return [UInt8](repeating: 0, count: 31) + [b ? 1 : 0]
        case (.fixedBytes(let n), .fixedBytes(let b)):
            guard b.count == n else { throw ChainKitError(.outOfRange, "bytes\(n) needs \(n) bytes, got \(b.count) at \(path)") }
            return b + [UInt8](repeating: 0, count: 32 - n)
        case (.bytes, .bytes(let b)): return lengthPrefixed(b)
        case (.string, .string(let s)): return lengthPrefixed(Array(s.utf8))
        case (.array(let element), .array(let items)):
            return UInt256(items.count).bigEndianBytes + (try encodeSequence(Array(repeating: element, count: items.count), items, path: path))
        case (.fixedArray(let element, let count), .array(let items)):
            guard items.count == count else { throw ChainKitError(.outOfRange, "\(type) needs \(count) items, got \(items.count) at \(path)") }
            return try encodeSequence(Array(repeating: element, count: count), items, path: path)
        case (.tuple(let members), .tuple(let items)):
            guard members.count == items.count else { throw ChainKitError(.outOfRange, "\(type) needs \(members.count) values, got \(items.count)") }
            return try encodeSequence(members, items, path: path)
        default:
            throw mismatch()
        }
    }

    /// Heads in order (static values inline, offsets for dynamic ones), then the tails.
    private static func encodeSequence(_ types: [ABIType], _ values: [ABIValue], path: String) throws -> [UInt8] {
        var head: [UInt8] = []
        var tail: [UInt8] = []
        let headSize = types.reduce(0) { $0 + $1.headSize }
        for (index, (type, value)) in zip(types, values).enumerated() {
            let encoded = try encode(type, value, path: path + "[\(index)]")
            if type.isDynamic {
                head += UInt256(headSize + tail.count).bigEndianBytes
                tail += encoded
            } else {
                head += encoded
            }
        }
        return head + tail
    }

    private static func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
        let padding = (32 - bytes.count % 32) % 32
        return UInt256(bytes.count).bigEndianBytes + bytes + [UInt8](repeating: 0, count: padding)
    }

    private static func fitsSigned(_ v: UInt256, bits: Int) -> Bool {
        guard bits < 256 else { return true }
        // In range when every bit from (bits-1) up equals the sign bit.
        let negative = v.high >> 127 == 1
        let bytes = v.bigEndianBytes
        let signByte: UInt8 = negative ? 0xFF : 0
        let keep = bits / 8
        guard bytes[0..<(32 - keep)].allSatisfy({ $0 == signByte }) else { return false }
        return (bytes[32 - keep] >> 7 == 1) == negative
    }

    // MARK: Decoding

    /// Decodes `data` as the tuple of `types`, strictly: every offset and length must lie inside
    /// the data, and padding must be zero.
    public static func decode(_ types: [ABIType], _ data: [UInt8]) throws -> [ABIValue] {
        guard case .tuple(let values) = try decode(.tuple(types), data, base: 0, at: 0, depth: 0) else { return [] }
        return values
    }

    private static func word(_ data: [UInt8], at offset: Int) throws -> [UInt8] {
        guard offset >= 0, offset <= data.count - 32 else {
            throw ChainKitError(.outOfRange, "ABI data ends before the word at offset \(offset) (\(data.count) bytes)")
        }
        return Array(data[offset..<offset + 32])
    }

    private static func smallInt(_ data: [UInt8], at offset: Int, _ what: String) throws -> Int {
        let value = try UInt256(bigEndian: word(data, at: offset))
        guard value.high == 0, value.low < UInt128(data.count) + 1 else {
            throw ChainKitError(.outOfRange, "\(what) at offset \(offset) points outside the data")
        }
        return Int(value.low)
    }

    private static func decode(_ type: ABIType, _ data: [UInt8], base: Int, at offset: Int, depth: Int) throws -> ABIValue {
        guard depth < 32 else { throw ChainKitError(.outOfRange, "ABI types nested too deeply") }
        switch type {
        case .uint(let bits):
            let v = try UInt256(bigEndian: word(data, at: offset))
            guard bits == 256 || v < UInt256(low: 0).withBit(bits) else {
                throw ChainKitError(.outOfRange, "uint\(bits) at \(offset) has high bits set")
            }
            return .uint(v)
        case .int(let bits):
            let v = try UInt256(bigEndian: word(data, at: offset))
            guard fitsSigned(v, bits: bits) else { throw ChainKitError(.outOfRange, "int\(bits) at \(offset) is not sign-extended") }
            return .int(v)
        case .address:
            let w = try word(data, at: offset)
            guard w[0..<12].allSatisfy({ $0 == 0 }) else { throw ChainKitError(.outOfRange, "address at \(offset) has non-zero padding") }
            return .address(try EthereumAddress(bytes: Array(w[12...])))
        case .bool:
            let w = try word(data, at: offset)
            guard w[0..<31].allSatisfy({ $0 == 0 }), w[31] <= 1 else { throw ChainKitError(.outOfRange, "bool at \(offset) is not 0 or 1") }
            return .bool(w[31] == 1)
        case .fixedBytes(let n):
            let w = try word(data, at: offset)
            guard w[n...].allSatisfy({ $0 == 0 }) else { throw ChainKitError(.outOfRange, "bytes\(n) at \(offset) has non-zero padding") }
            return .fixedBytes(Array(w[0..<n]))
        case .bytes, .string:
            let start = base + (try smallInt(data, at: offset, "an offset"))
            let length = try smallInt(data, at: start, "a length")
            guard start + 32 + length <= data.count else { throw ChainKitError(.outOfRange, "\(type) at \(start) runs past the data") }
            let content = Array(data[(start + 32)..<(start + 32 + length)])
            let paddedEnd = min(data.count, start + 32 + (length + 31) / 32 * 32)
            guard data[(start + 32 + length)..<paddedEnd].allSatisfy({ $0 == 0 }) else {
                throw ChainKitError(.outOfRange, "\(type) at \(start) has non-zero padding")
            }
            if case .string = type {
                guard let text = String(validating: content, as: UTF8.self) else {
                    throw ChainKitError(.outOfRange, "string at \(start) is not UTF-8")
                }
                return .string(text)
            }
            return .bytes(content)
        case .array(let element):
            let start = base + (try smallInt(data, at: offset, "an offset"))
            let count = try smallInt(data, at: start, "an array length")
            guard count <= (data.count - start) / 32 else { throw ChainKitError(.outOfRange, "array at \(start) claims \(count) items") }
            return .array(try decodeSequence(Array(repeating: element, count: count), data, base: start + 32, depth: depth))
        case .fixedArray(let element, let count):
            if type.isDynamic {
                let start = base + (try smallInt(data, at: offset, "an offset"))
                return .array(try decodeSequence(Array(repeating: element, count: count), data, base: start, depth: depth))
            }
            return .array(try decodeSequence(Array(repeating: element, count: count), data, base: offset, depth: depth))
        case .tuple(let members):
            if type.isDynamic && depth > 0 {
                let start = base + (try smallInt(data, at: offset, "an offset"))
                return .tuple(try decodeSequence(members, data, base: start, depth: depth))
            }
            return .tuple(try decodeSequence(members, data, base: depth == 0 ? base : offset, depth: depth))
        }
    }

    /// Decodes a sequence whose heads start at `base`; offsets inside it are relative to `base`.
    private static func decodeSequence(_ types: [ABIType], _ data: [UInt8], base: Int, depth: Int) throws -> [ABIValue] {
        var values: [ABIValue] = []
        var position = base
        for type in types {
            values.append(try decode(type, data, base: base, at: position, depth: depth + 1))
            position += type.headSize
        }
        return values
    }

    // MARK: Revert data

    /// What a failed call returned.
    public enum RevertReason: Sendable, Hashable {
        /// `Error(string)`, from `require(cond, "message")` or `revert("message")`.
        case error(String)
        /// `Panic(uint256)`: 0x01 assert, 0x11 overflow, 0x12 division by zero, …
        case panic(UInt256)
    }

    /// Decodes revert data; `nil` for data that is neither `Error(string)` nor `Panic(uint256)`.
    public static func revertReason(_ data: [UInt8]) -> RevertReason? {
        guard data.count >= 4 else { return nil }
        let body = Array(data[4...])
        switch Array(data[0..<4]) {
        case selector("Error(string)"):
            if case .string(let text)? = try? decode([.string], body).first { return .error(text) }
        case selector("Panic(uint256)"):
            if case .uint(let code)? = try? decode([.uint(bits: 256)], body).first { return .panic(code) }
        default: break
        }
        return nil
    }
}

extension UInt256 {
    /// This value with bit `index` set (2^index for zero).
    func withBit(_ index: Int) -> UInt256 {
        var copy = self
        if index >= 128 { copy.high |= 1 << UInt128(index - 128) } else { copy.low |= 1 << UInt128(index) }
        return copy
    }
}
