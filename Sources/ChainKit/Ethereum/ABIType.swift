/// A Solidity ABI type.
public indirect enum ABIType: Sendable, Hashable, CustomStringConvertible {
    case uint(bits: Int)
    case int(bits: Int)
    case address
    case bool
    /// `bytes1` … `bytes32`.
    case fixedBytes(Int)
    case bytes
    case string
    /// `T[]`.
    case array(ABIType)
    /// `T[n]`.
    case fixedArray(ABIType, Int)
    case tuple([ABIType])

    /// Parses a canonical type name such as `uint256`, `bytes32`, `(address,uint256)[]`, `uint8[2][3]`.
    public init(_ text: String) throws {
        var parser = Parser(text: Array(text.utf8))
        self = try parser.parseType()
        guard parser.atEnd else { throw ChainKitError(.outOfRange, "unexpected text after the type in '\(text)'") }
    }

    /// Dynamic types are encoded in the tail with an offset in the head.
    public var isDynamic: Bool {
        switch self {
        case .bytes, .string, .array: true
        case .fixedArray(let element, _): element.isDynamic
        case .tuple(let members): members.contains { $0.isDynamic }
        default: false
        }
    }

    /// Bytes the type takes in the head.
    var headSize: Int {
        if isDynamic { return 32 }
        switch self {
        case .fixedArray(let element, let count): return element.headSize * count
        case .tuple(let members): return members.reduce(0) { $0 + $1.headSize }
        default: return 32
        }
    }

    /// The canonical name, as used in signatures.
    public var description: String {
        switch self {
        case .uint(let bits): "uint\(bits)"
        case .int(let bits): "int\(bits)"
        case .address: "address"
        case .bool: "bool"
        case .fixedBytes(let n): "bytes\(n)"
        case .bytes: "bytes"
        case .string: "string"
        case .array(let element): "\(element)[]"
        case .fixedArray(let element, let n): "\(element)[\(n)]"
        case .tuple(let members): "(" + members.map(\.description).joined(separator: ",") + ")"
        }
    }

    private struct Parser {
        let text: [UInt8]
        var position = 0
        var atEnd: Bool { position == text.count }

        mutating func parseType() throws -> ABIType {
            var base: ABIType
            if position < text.count && text[position] == UInt8(ascii: "(") {
                position += 1
                var members: [ABIType] = []
                if position < text.count && text[position] == UInt8(ascii: ")") {
                    position += 1
                } else {
                    while true {
                        members.append(try parseType())
                        guard position < text.count else { throw error("an unclosed tuple") }
                        let separator = text[position]
                        position += 1
                        if separator == UInt8(ascii: ")") { break }
                        guard separator == UInt8(ascii: ",") else { throw error("',' or ')' expected in a tuple") }
                    }
                }
                base = .tuple(members)
            } else {
                let start = position
                while position < text.count,
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(text[position])
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[position])
                {
                    position += 1
                }
                base = try Self.elementary(String(decoding: text[start..<position], as: UTF8.self))
            }
            while position < text.count && text[position] == UInt8(ascii: "[") {
                position += 1
                let start = position
                while position < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[position]) { position += 1 }
                guard position < text.count, text[position] == UInt8(ascii: "]") else { throw error("']' expected") }
                let digits = String(decoding: text[start..<position], as: UTF8.self)
                position += 1
                if digits.isEmpty {
                    base = .array(base)
                } else {
                    guard let count = Int(digits), count > 0, count <= 1 << 16 else { throw error("a fixed array length of 1 to 65536") }
                    base = .fixedArray(base, count)
                }
            }
            return base
        }

        static func elementary(_ name: String) throws -> ABIType {
            switch name {
            case "address": return .address
            case "bool": return .bool
            case "bytes": return .bytes
            case "string": return .string
            case "uint": return .uint(bits: 256)
            case "int": return .int(bits: 256)
            default:
                for (prefix, make) in [("uint", ABIType.uint), ("int", ABIType.int)] as [(String, (Int) -> ABIType)] where name.hasPrefix(prefix) {
                    if let bits = Int(name.dropFirst(prefix.count)), bits >= 8, bits <= 256, bits % 8 == 0 { return make(bits) }
                }
                if name.hasPrefix("bytes"), let n = Int(name.dropFirst(5)), (1...32).contains(n) { return .fixedBytes(n) }
                throw ChainKitError(.outOfRange, "'\(name)' is not an ABI type")
            }
        }

        func error(_ expected: String) -> ChainKitError {
            ChainKitError(.outOfRange, "malformed ABI type '\(String(decoding: text, as: UTF8.self))': \(expected) at \(position)")
        }
    }
}
