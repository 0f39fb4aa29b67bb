import ChainKit

/// A call or an event decoded with a ``KnownSignature``: its name and standard, and each argument
/// as text (addresses EIP-55, integers as decimal strings, never floating point: a token amount
/// is as exact as the chain's; bytes as `0x` hex).
struct DecodedABI: Codable, Sendable, Equatable {
    var name: String
    var signature: String
    var standard: String
    var args: [String: String]
}

extension KnownSignatures {
    /// The call `data` makes, when it starts with a known selector and its arguments decode
    /// strictly (lengths, offsets and padding as the ABI requires); `nil` otherwise.
    static func decodeCall(_ data: [UInt8]) -> DecodedABI? {
        guard data.count >= 4 else { return nil }
        let selector = Hex.encode(data.prefix(4))
        let arguments = Array(data.dropFirst(4))
        for function in functions where function.selector == selector {
            guard let values = try? ABI.decode(function.parameters.map(\.type), arguments) else { continue }
            return DecodedABI(function, values: zip(function.parameters, values).map { ($0.name, $1) })
        }
        return nil
    }

    /// The event a log records, when its first topic is known and its other topics and data fit
    /// the event's indexed and plain parameters; `nil` otherwise.
    static func decodeEvent(topics: [String], data: [UInt8]) -> DecodedABI? {
        guard let first = topics.first?.lowercased() else { return nil }
        for event in events where event.selector == first {
            let indexed = event.parameters.filter(\.indexed)
            guard indexed.count == topics.count - 1 else { continue }
            let plain = event.parameters.filter { !$0.indexed }
            guard let topicValues = try? zip(indexed, topics.dropFirst()).map({ try ABI.decode([$0.type], Hex.decode($1, length: 32))[0] }),
                let dataValues = try? ABI.decode(plain.map(\.type), data)
            else { continue }
            var named = zip(indexed.map(\.name), topicValues).map { ($0, $1) }
            named += zip(plain.map(\.name), dataValues).map { ($0, $1) }
            return DecodedABI(event, values: named)
        }
        return nil
    }
}

extension DecodedABI {
    init(_ known: KnownSignature, values: [(String, ABIValue)]) {
        self.init(
            name: known.name,
            signature: known.signature,
            standard: known.standard,
            args: Dictionary(values.map { ($0.0, Self.text($0.1)) }, uniquingKeysWith: { first, _ in first })
        )
    }

    /// An argument as the explorer shows it. The table holds only addresses, unsigned integers,
    /// booleans and bytes; anything else is written out as it decoded.
    static func text(_ value: ABIValue) -> String {
        switch value {
        case .address(let address): address.checksummed
        case .uint(let integer): integer.description
        case .bool(let flag): flag ? "true" : "false"
        case .bytes(let bytes), .fixedBytes(let bytes): Hex.encode(bytes)
        case .string(let text): text
        default: "\(value)"
        }
    }
}
