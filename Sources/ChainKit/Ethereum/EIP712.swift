import Foundation

/// EIP-712 typed structured data: the hash wallets sign for `eth_signTypedData_v4`.
///
/// Input is the JSON wallets receive: `{ "types": …, "primaryType": …, "domain": …, "message": … }`.
public struct EIP712: Sendable {
    /// Struct name → its fields as (name, type), in declaration order.
    public let types: [String: [(name: String, type: String)]]
    public let primaryType: String
    let domainJSON: Data
    let messageJSON: Data

    public init(json: String) throws {
        guard let root = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw ChainKitError(.outOfRange, "typed data must be a JSON object")
        }
        guard let rawTypes = root["types"] as? [String: Any] else { throw ChainKitError(.outOfRange, "typed data needs 'types'") }
        var types: [String: [(name: String, type: String)]] = [:]
        for (structName, fields) in rawTypes {
            guard let list = fields as? [[String: Any]] else { throw ChainKitError(.outOfRange, "types.\(structName) must be a list of fields") }
            types[structName] = try list.map { field in
                guard let name = field["name"] as? String, let type = field["type"] as? String else {
                    throw ChainKitError(.outOfRange, "every field of \(structName) needs a name and a type")
                }
                return (name, type)
            }
        }
        guard let primaryType = root["primaryType"] as? String, types[primaryType] != nil else {
            throw ChainKitError(.outOfRange, "primaryType must name one of the types")
        }
        guard types["EIP712Domain"] != nil else { throw ChainKitError(.outOfRange, "types needs EIP712Domain") }
        guard let domain = root["domain"] as? [String: Any], let message = root["message"] as? [String: Any] else {
            throw ChainKitError(.outOfRange, "typed data needs 'domain' and 'message' objects")
        }
        self.types = types
        self.primaryType = primaryType
        domainJSON = try JSONSerialization.data(withJSONObject: domain)
        messageJSON = try JSONSerialization.data(withJSONObject: message)
    }

    /// `Name(type field,…)` followed by every struct it references, sorted by name.
    public func encodeType(_ name: String) throws -> String {
        var referenced = Set<String>()
        try collectReferences(name, into: &referenced)
        referenced.remove(name)
        return try ([name] + referenced.sorted()).map { structName in
            guard let fields = types[structName] else { throw ChainKitError(.outOfRange, "unknown type \(structName)") }
            return structName + "(" + fields.map { "\($0.type) \($0.name)" }.joined(separator: ",") + ")"
        }.joined()
    }

    public func typeHash(_ name: String) throws -> [UInt8] { Keccak256.hash(Array(try encodeType(name).utf8)) }

    public var domainSeparator: [UInt8] {
        get throws { try hashStruct("EIP712Domain", object(domainJSON)) }
    }

    public var structHash: [UInt8] {
        get throws { try hashStruct(primaryType, object(messageJSON)) }
    }

    /// keccak-256(`0x19 0x01` ‖ domainSeparator ‖ hashStruct(message)).
    public var signingHash: [UInt8] {
        get throws { Keccak256.hash([0x19, 0x01] + (try domainSeparator) + (try structHash)) }
    }

    private func object(_ data: Data) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    private func collectReferences(_ type: String, into found: inout Set<String>) throws {
        let base = Self.baseType(type)
        guard let fields = types[base], found.insert(base).inserted else { return }
        for field in fields { try collectReferences(field.type, into: &found) }
    }

    /// `Person[][2]` → `Person`.
    static func baseType(_ type: String) -> String {
        type.firstIndex(of: "[").map { String(type[..<$0]) } ?? type
    }

    func hashStruct(_ name: String, _ value: [String: Any]) throws -> [UInt8] {
        guard let fields = types[name] else { throw ChainKitError(.outOfRange, "unknown type \(name)") }
        var encoded = try typeHash(name)
        for field in fields {
            guard let fieldValue = value[field.name] else { throw ChainKitError(.outOfRange, "\(name).\(field.name) is missing") }
            encoded += try encodeValue(field.type, fieldValue, path: "\(name).\(field.name)")
        }
        return Keccak256.hash(encoded)
    }

    private func encodeValue(_ type: String, _ value: Any, path: String) throws -> [UInt8] {
        if type.hasSuffix("]"), let open = type.lastIndex(of: "[") {
            guard let items = value as? [Any] else { throw ChainKitError(.outOfRange, "\(path) must be an array") }
            let element = String(type[..<open])
            let length = type[type.index(after: open)..<type.index(before: type.endIndex)]
            if !length.isEmpty && Int(length) != items.count {
                throw ChainKitError(.outOfRange, "\(path) must have \(length) items, has \(items.count)")
            }
            var concatenated: [UInt8] = []
            for (index, item) in items.enumerated() { concatenated += try encodeValue(element, item, path: "\(path)[\(index)]") }
            return Keccak256.hash(concatenated)
        }
        if let object = value as? [String: Any], types[type] != nil { return try hashStruct(type, object) }
        switch type {
        case "string":
            guard let text = value as? String else { throw ChainKitError(.outOfRange, "\(path) must be a string") }
            return Keccak256.hash(Array(text.utf8))
        case "bytes":
            return Keccak256.hash(try bytes(value, path: path))
        case "bool":
            guard let number = value as? NSNumber else { throw ChainKitError(.outOfRange, "\(path) must be true or false") }
            return UInt256(number.boolValue ? 1 : 0).bigEndianBytes
        case "address":
            guard let text = value as? String else { throw ChainKitError(.outOfRange, "\(path) must be an address string") }
            return [UInt8](repeating: 0, count: 12) + (try EthereumAddress(text.lowercased())).bytes
        default:
            if let abiType = try? ABIType(type) {
                switch abiType {
                case .fixedBytes(let n):
                    let raw = try bytes(value, path: path)
                    guard raw.count == n else { throw ChainKitError(.outOfRange, "\(path) must be \(n) bytes") }
                    return raw + [UInt8](repeating: 0, count: 32 - n)
                case .uint, .int:
                    let (negative, magnitude) = try integer(value, path: path)
                    let abiValue: ABIValue = {
                        if case .int = abiType { return .int(negative: negative, magnitude: magnitude) }
                        return .uint(magnitude)
                    }()
                    if negative, case .uint = abiType { throw ChainKitError(.outOfRange, "\(path) must not be negative") }
                    return try ABI.encode([abiType], [abiValue])
                default: break
                }
            }
            throw ChainKitError(.outOfRange, "\(path) has unknown type \(type)")
        }
    }

    private func bytes(_ value: Any, path: String) throws -> [UInt8] {
        guard let text = value as? String else { throw ChainKitError(.outOfRange, "\(path) must be a hex string") }
        return try Hex.decode(text)
    }

    /// JSON integers arrive as numbers or as decimal or `0x` hex strings.
    private func integer(_ value: Any, path: String) throws -> (negative: Bool, magnitude: UInt256) {
        if let number = value as? NSNumber {
            let signed = number.int64Value
            if signed < 0 { return (true, UInt256(signed.magnitude)) }
            return (false, UInt256(number.uint64Value))
        }
        guard let text = value as? String else { throw ChainKitError(.outOfRange, "\(path) must be an integer") }
        if text.hasPrefix("0x") { return (false, try UInt256(bigEndian: Hex.decode(text))) }
        if text.hasPrefix("-") { return (true, try UInt256(decimal: String(text.dropFirst()))) }
        return (false, try UInt256(decimal: text))
    }
}
