import ChainKit
import Testing

@Suite("Solidity ABI against the golden vectors")
struct ABITests {
    /// Builds the value a vector describes for `type`: decimal strings for integers (with a sign
    /// for int), hex for bytes and addresses, nested arrays for arrays and tuples.
    static func value(_ json: Any, _ type: ABIType) throws -> ABIValue {
        switch type {
        case .uint: return .uint(try UInt256(decimal: try #require(json as? String)))
        case .int:
            let text = try #require(json as? String)
            let negative = text.hasPrefix("-")
            return .int(negative: negative, magnitude: try UInt256(decimal: negative ? String(text.dropFirst()) : text))
        case .address: return .address(try EthereumAddress(try #require(json as? String)))
        case .bool: return .bool(try #require(json as? Bool))
        case .fixedBytes: return .fixedBytes(try Hex.decode(try #require(json as? String)))
        case .bytes: return .bytes(try Hex.decode(try #require(json as? String)))
        case .string: return .string(try #require(json as? String))
        case .array(let element), .fixedArray(let element, _):
            return .array(try (try #require(json as? [Any])).map { try value($0, element) })
        case .tuple(let members):
            let items = try #require(json as? [Any])
            return .tuple(try zip(members, items).map { try value($1, $0) })
        }
    }

    @Test("every encode vector encodes byte for byte and decodes back to the same values")
    func encodeDecode() throws {
        for vector in try VectorFile("abi").of(kind: "encode") {
            let types = try (try #require(vector["types"] as? [String])).map(ABIType.init)
            let jsonValues = try #require(vector["values"] as? [Any])
            let values = try zip(types, jsonValues).map { try Self.value($1, $0) }
            let expected = try Hex.decode(vector.string("encoded"))
            #expect(try ABI.encode(types, values) == expected, "\(vector.name)")
            #expect(try ABI.decode(types, expected) == values, "\(vector.name)")
            #expect(types.map(\.description) == vector["types"] as? [String])
        }
    }

    @Test("selectors, event topics and calldata")
    func selectorsAndCalldata() throws {
        for vector in try VectorFile("abi").of(kind: "selector") {
            #expect(Hex.encode(ABI.selector(try vector.string("signature"))) == (try vector.string("selector")), "\(vector.name)")
        }
        for vector in try VectorFile("abi").of(kind: "event_topic") {
            #expect(Hex.encode(ABI.eventTopic(try vector.string("signature"))) == (try vector.string("topic0")), "\(vector.name)")
        }
        for vector in try VectorFile("abi").of(kind: "calldata") {
            let types = try (try #require(vector["types"] as? [String])).map(ABIType.init)
            let values = try zip(types, try #require(vector["values"] as? [Any])).map { try Self.value($1, $0) }
            let calldata = try ABI.calldata(try vector.string("signature"), types: types, values: values)
            #expect(Hex.encode(calldata) == (try vector.string("calldata")), "\(vector.name)")
        }
    }

    @Test("revert data decodes to the reason or panic code")
    func reverts() throws {
        for vector in try VectorFile("abi").of(kind: "revert_error") {
            #expect(ABI.revertReason(try Hex.decode(vector.string("payload"))) == .error(try vector.string("reason")), "\(vector.name)")
        }
        for vector in try VectorFile("abi").of(kind: "revert_panic") {
            let code = UInt256(try #require(vector["code"] as? Int))
            #expect(ABI.revertReason(try Hex.decode(vector.string("payload"))) == .panic(code), "\(vector.name)")
        }
        #expect(ABI.revertReason([0xde, 0xad]) == nil)
    }

    @Test("an ERC-20 Transfer log: topics and data")
    func eventLog() throws {
        let vector = try #require(try VectorFile("abi").of(kind: "event_log").first)
        let topics = try #require(vector["topics"] as? [String])
        #expect(Hex.encode(ABI.eventTopic(try vector.string("signature"))) == topics[0])
        let from = try ABI.encode([.address], [.address(try EthereumAddress(vector.string("from")))])
        #expect(Hex.encode(from) == topics[1])
        let data = try ABI.decode([.uint(bits: 256)], Hex.decode(vector.string("data")))
        #expect(data.count == 1)
    }

    @Test(
        "malformed types are refused",
        arguments: ["uint7", "uint264", "bytes0", "bytes33", "(uint256", "uint256[", "uint256[0]", "foo", "(uint256,)x"]
    )
    func badTypes(text: String) {
        #expect(throws: ChainKitError.self) { try ABIType(text) }
    }

    @Test("values that do not fit and data that lies are refused")
    func badData() throws {
        #expect(throws: ChainKitError(.outOfRange, "")) { try ABI.encode([.uint(bits: 8)], [.uint(UInt256(256))]) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try ABI.encode([.int(bits: 8)], [.int(negative: true, magnitude: UInt256(129))]) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try ABI.encode([.bool], [.uint(.zero)]) }
        // Truncated word, offset past the end, bool of 2, dirty address padding.
        #expect(throws: ChainKitError(.outOfRange, "")) { try ABI.decode([.uint(bits: 256)], [0, 1]) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try ABI.decode([.bytes], UInt256(4096).bigEndianBytes) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try ABI.decode([.bool], UInt256(2).bigEndianBytes) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try ABI.decode([.address], [UInt8](repeating: 0xFF, count: 32)) }
        // An array that claims a billion items in 64 bytes.
        #expect(throws: ChainKitError(.outOfRange, "")) {
            try ABI.decode([.array(.uint(bits: 256))], UInt256(32).bigEndianBytes + UInt256(1_000_000_000).bigEndianBytes)
        }
    }
}
