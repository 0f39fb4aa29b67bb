import ChainKit
import Testing

@Suite("SCALE codec and eras")
struct SCALETests {
    @Test("scale.json holds only kinds this suite checks")
    func coversEveryKind() throws {
        #expect(try SubstrateVector.kinds(in: "scale") == ["compact", "value", "era"])
        for kind in ["compact", "value", "era"] {
            #expect(try !SubstrateVector.names(in: "scale", kind: kind).isEmpty)
        }
    }

    // MARK: Compact

    @Test("compact integers encode and decode as the vectors say", arguments: try SubstrateVector.names(in: "scale", kind: "compact"))
    func compact(name: String) throws {
        let vector = try SubstrateVector(file: "scale", named: name)
        try #require(try vector.string("type") == "Compact<u128>")
        let value = try #require(UInt128(try vector.string("value")))
        let encoded = try vector.bytes("encoded")

        #expect(SCALECompact(value).scaleEncoded == encoded)
        #expect(try SCALECompact<UInt128>(scaleEncoded: encoded).value == value)
        // The same bytes read into every narrower type that can hold the value, and are refused by the others.
        try checkCompact(UInt8.self, value, encoded)
        try checkCompact(UInt16.self, value, encoded)
        try checkCompact(UInt32.self, value, encoded)
        try checkCompact(UInt64.self, value, encoded)
    }

    private func checkCompact<T: FixedWidthInteger & UnsignedInteger & Sendable>(
        _ type: T.Type,
        _ value: UInt128,
        _ encoded: [UInt8]
    ) throws {
        if let narrow = T(exactly: value) {
            var encoder = SCALEEncoder()
            encoder.encodeCompact(narrow)
            #expect(encoder.bytes == encoded)
            #expect(try SCALECompact<T>(scaleEncoded: encoded).value == narrow)
        } else {
            #expect(throws: ChainKitError(.outOfRange, "")) { try SCALECompact<T>(scaleEncoded: encoded) }
        }
    }

    @Test(
        "a compact in a longer mode than its value needs is refused",
        arguments: [
            [0x01, 0x00],  // 0 in the two-byte mode
            [0xFD, 0x00],  // 63 in the two-byte mode
            [0x02, 0x00, 0x00, 0x00],  // 0 in the four-byte mode
            [0xFE, 0xFF, 0x00, 0x00],  // 16383 in the four-byte mode
            [0x03, 0x00, 0x00, 0x00, 0x00],  // 0 in the big-integer mode
            [0x03, 0xFF, 0xFF, 0xFF, 0x3F],  // 2^30 - 1 in the big-integer mode
            [0x07, 0x00, 0x00, 0x00, 0x40, 0x00],  // 2^30 in five bytes, top byte zero
            [0x33] + [UInt8](repeating: 0xFF, count: 15) + [0x00],  // 2^120 - 1 in sixteen bytes
        ] as [[UInt8]]
    )
    func nonCanonicalCompact(bytes: [UInt8]) {
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try SCALECompact<UInt128>(scaleEncoded: bytes) }
    }

    @Test(
        "a truncated compact is refused",
        arguments: [
            [],
            [0x01],
            [0x02, 0x00, 0x01],
            [0x03, 0x00, 0x00, 0x00],
            [0x07, 0x00, 0x00, 0x00, 0x00],
            [0x33] + [UInt8](repeating: 0xFF, count: 15),
        ] as [[UInt8]]
    )
    func truncatedCompact(bytes: [UInt8]) {
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try SCALECompact<UInt128>(scaleEncoded: bytes) }
    }

    @Test("a compact wider than 128 bits is out of range")
    func compactTooWide() {
        let seventeenBytes: [UInt8] = [0x37] + [UInt8](repeating: 0xFF, count: 17)
        #expect(throws: ChainKitError(.outOfRange, "")) { try SCALECompact<UInt128>(scaleEncoded: seventeenBytes) }
    }

    @Test("compact boundaries round-trip, and the error names the offset")
    func compactBoundaries() throws {
        for shift in 0..<128 {
            for value in [UInt128(1) << shift, (UInt128(1) << shift) - 1, (UInt128(1) << shift) + 1] {
                #expect(try SCALECompact<UInt128>(scaleEncoded: SCALECompact(value).scaleEncoded).value == value)
            }
        }
        var decoder = SCALEDecoder([0x04, 0x01, 0x00])
        #expect(try decoder.decodeCompact(UInt32.self) == 1)
        #expect {
            try decoder.decodeCompact(UInt32.self)
        } throws: { error in
            (error as? ChainKitError)?.message.contains("offset 1") == true
        }
    }

    // MARK: Values

    @Test("values encode and decode as the vectors say", arguments: try SubstrateVector.names(in: "scale", kind: "value"))
    func value(name: String) throws {
        let vector = try SubstrateVector(file: "scale", named: name)
        let encoded = try vector.bytes("encoded")
        let type = try vector.string("type")
        switch type {
        case "u8": try roundTrip(UInt8(decimal: vector.string("value")), encoded)
        case "u16": try roundTrip(UInt16(decimal: vector.string("value")), encoded)
        case "u32": try roundTrip(UInt32(decimal: vector.string("value")), encoded)
        case "u64": try roundTrip(UInt64(decimal: vector.string("value")), encoded)
        case "u128": try roundTrip(UInt128(decimal: vector.string("value")), encoded)
        case "i8": try roundTrip(Int8(decimal: vector.string("value")), encoded)
        case "i32": try roundTrip(Int32(decimal: vector.string("value")), encoded)
        case "i64": try roundTrip(Int64(decimal: vector.string("value")), encoded)
        case "bool": try roundTrip(vector.bool("value"), encoded)
        case "Vec<u8>":
            try roundTrip(vector.bytes("value"), encoded)
            var encoder = SCALEEncoder()
            encoder.encodeBytes(try vector.bytes("value"))
            #expect(encoder.bytes == encoded)
        case "Vec<u32>":
            let values = try #require(vector["value"] as? [String]).map { try UInt32(decimal: $0) }
            try roundTrip(values, encoded)
        case "String": try roundTrip(vector.string("value"), encoded)
        case "Option<u32>":
            let value: UInt32? = try vector.isNull("value") ? nil : UInt32(decimal: vector.string("value"))
            try roundTrip(value, encoded)
        case "(u8, u32)":
            let parts = try #require(vector["value"] as? [String])
            try #require(parts.count == 2)
            var encoder = SCALEEncoder()
            encoder.encode(try UInt8(decimal: parts[0]))
            encoder.encode(try UInt32(decimal: parts[1]))
            #expect(encoder.bytes == encoded)
            var decoder = SCALEDecoder(encoded)
            #expect(try decoder.decode(UInt8.self) == UInt8(decimal: parts[0]))
            #expect(try decoder.decode(UInt32.self) == UInt32(decimal: parts[1]))
            try decoder.finish()
        case "[u8; 4]", "H256":
            let raw = try vector.bytes("value")
            var encoder = SCALEEncoder()
            encoder.encodeRaw(raw)
            #expect(encoder.bytes == encoded)
            var decoder = SCALEDecoder(encoded)
            #expect(try decoder.decodeRaw(count: type == "H256" ? 32 : 4) == raw)
            try decoder.finish()
        case "HubEnum": try roundTrip(HubEnum(json: vector["value"]), encoded)
        case "HubStruct": try roundTrip(HubStruct(json: vector["value"]), encoded)
        case "MultiAddress": try roundTrip(TestMultiAddress(json: vector["value"]), encoded)
        default: Issue.record("no check for SCALE type \(type) in \(name)")
        }
    }

    private func roundTrip<T: SCALECodable & Equatable>(_ value: T, _ encoded: [UInt8]) throws {
        #expect(value.scaleEncoded == encoded)
        #expect(try T(scaleEncoded: encoded) == value)
    }

    @Test("signed integers are two's complement, little-endian")
    func signedIntegers() throws {
        #expect(Int16(-2).scaleEncoded == [0xFE, 0xFF])
        #expect(Int128.min.scaleEncoded == [UInt8](repeating: 0, count: 15) + [0x80])
        #expect(try Int128(scaleEncoded: Int128.min.scaleEncoded) == .min)
        #expect(try Int64(scaleEncoded: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]) == .max)
    }

    @Test("Option<bool> is two bytes; OptionBool is the one-byte form")
    func optionalBool() throws {
        #expect(Bool?.some(false).scaleEncoded == [0x01, 0x00])
        #expect(Bool?.some(true).scaleEncoded == [0x01, 0x01])
        #expect(Bool?.none.scaleEncoded == [0x00])
        for (value, byte) in [(nil, 0), (true, 1), (false, 2)] as [(Bool?, UInt8)] {
            #expect(SCALEOptionBool(value).scaleEncoded == [byte])
            #expect(try SCALEOptionBool(scaleEncoded: [byte]).value == value)
        }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try SCALEOptionBool(scaleEncoded: [3]) }
    }

    @Test("the explicit Vec and Option helpers write the same bytes as the generic conformances")
    func helpers() throws {
        var encoder = SCALEEncoder()
        encoder.encodeVector([UInt16(1), 2]) { $0.encode($1) }
        encoder.encodeOption(UInt32(5)) { $0.encode($1) }
        encoder.encodeOption(UInt32?.none) { $0.encode($1) }
        #expect(encoder.bytes == [UInt16(1), 2].scaleEncoded + UInt32?.some(5).scaleEncoded + [0x00])

        var decoder = SCALEDecoder(encoder.bytes)
        #expect(try decoder.decodeVector { try $0.decode(UInt16.self) } == [1, 2])
        #expect(try decoder.decodeOption { try $0.decode(UInt32.self) } == 5)
        #expect(try decoder.decodeOption { try $0.decode(UInt32.self) } == nil)
        #expect(decoder.isAtEnd)
        try decoder.finish()
    }

    // MARK: Malformed input

    @Test(
        "malformed bytes are refused with invalid_scale",
        arguments: [
            Malformed("truncated u64") { _ = try UInt64(scaleEncoded: [1, 2, 3]) },
            Malformed("trailing byte after u32") { _ = try UInt32(scaleEncoded: [1, 0, 0, 0, 0]) },
            Malformed("bool byte 2") { _ = try Bool(scaleEncoded: [2]) },
            Malformed("bool byte 0xff") { _ = try Bool(scaleEncoded: [0xFF]) },
            Malformed("Option tag 2") { _ = try UInt32?(scaleEncoded: [2, 0, 0, 0, 0]) },
            Malformed("Option with value cut short") { _ = try UInt32?(scaleEncoded: [1, 0, 0]) },
            Malformed("vector longer than its bytes") { _ = try [UInt8](scaleEncoded: [0x10, 1, 2]) },
            Malformed("vector count of 2^64 - 1") { _ = try [UInt32](scaleEncoded: [0x13] + [UInt8](repeating: 0xFF, count: 8)) },
            Malformed("vector element cut short") { _ = try [UInt32](scaleEncoded: [0x08, 1, 0, 0, 0, 2, 0]) },
            Malformed("string that is not UTF-8") { _ = try String(scaleEncoded: [0x08, 0xC3, 0x28]) },
            Malformed("empty input for u8") { _ = try UInt8(scaleEncoded: []) },
            Malformed("unknown enum variant") { _ = try HubEnum(scaleEncoded: [0x04]) },
            Malformed("mortal era period 2") { _ = try Era(scaleEncoded: [0x10, 0x00]) },
            Malformed("mortal era phase not below period") { _ = try Era(scaleEncoded: [0x41, 0x00]) },
            Malformed("mortal era cut short") { _ = try Era(scaleEncoded: [0x85]) },
            Malformed("immortal era with a trailing byte") { _ = try Era(scaleEncoded: [0x00, 0x00]) },
        ]
    )
    func malformed(input: Malformed) {
        #expect(throws: ChainKitError(.invalidSCALE, ""), "\(input.label)") { try input.decode() }
    }

    /// One malformed input, named for the test report.
    struct Malformed: Sendable, CustomTestStringConvertible {
        let label: String
        let decode: @Sendable () throws -> Void

        init(_ label: String, _ decode: @escaping @Sendable () throws -> Void) {
            self.label = label
            self.decode = decode
        }

        var testDescription: String { label }
    }

    @Test("finish() refuses trailing bytes and names how many")
    func finish() throws {
        var decoder = SCALEDecoder([0x2A, 0x00, 0x01, 0x02])
        #expect(try decoder.decode(UInt16.self) == 42)
        #expect(decoder.remaining == 2)
        #expect {
            try decoder.finish()
        } throws: { error in
            (error as? ChainKitError)?.code == .invalidSCALE && (error as? ChainKitError)?.message.contains("2 trailing") == true
        }
    }

    // MARK: Eras

    @Test("eras encode, decode and give birth and death blocks as the vectors say", arguments: try SubstrateVector.names(in: "scale", kind: "era"))
    func era(name: String) throws {
        let vector = try SubstrateVector(file: "scale", named: name)
        let encoded = try vector.bytes("encoded")
        if try vector.bool("immortal") {
            #expect(Era.immortal.scaleEncoded == encoded)
            #expect(try Era(scaleEncoded: encoded) == .immortal)
            #expect(Era.immortal.isImmortal)
            #expect(Era.immortal.birth(currentBlock: 1000) == 0)
            #expect(Era.immortal.death(currentBlock: 1000) == .max)
            return
        }
        let current = try vector.uint64("current_block")
        let era = Era.mortal(period: try vector.uint64("requested_period"), currentBlock: current)
        #expect(era.period == (try vector.uint64("period")))
        #expect(era.phase == (try vector.uint64("phase")))
        #expect(!era.isImmortal)
        #expect(era.scaleEncoded == encoded)
        #expect(try Era(scaleEncoded: encoded) == era)
        #expect(try Era(period: vector.uint64("period"), phase: vector.uint64("phase")) == era)
        #expect(era.birth(currentBlock: current) == (try vector.uint64("birth_block")))
        #expect(era.death(currentBlock: current) == (try vector.uint64("death_block")))
    }

    @Test("mortal periods round up to a power of two and clamp to 4...65536")
    func eraPeriods() {
        let cases: [(requested: UInt64, period: UInt64)] = [
            (0, 4), (1, 4), (3, 4), (5, 8), (64, 64), (65, 128), (65536, 65536), (65537, 65536), (.max, 65536),
        ]
        for (requested, period) in cases {
            #expect(Era.mortal(period: requested, currentBlock: 12_345).period == period)
        }
    }

    @Test("every valid two-byte mortal encoding decodes and re-encodes to itself")
    func everyMortalEncoding() throws {
        var valid = 0
        for low in 1...255 {
            for high in 0...255 {
                let bytes = [UInt8(low), UInt8(high)]
                guard let era = try? Era(scaleEncoded: bytes) else { continue }
                valid += 1
                #expect(era.scaleEncoded == bytes)
            }
        }
        // 15 periods (4...65536) times min(period, 4096) phases each.
        let expected = (2...16).map { min(1 << $0, 4096) }.reduce(0, +)
        #expect(valid == expected)
    }

    @Test("an era with a period or phase Substrate cannot encode is refused")
    func invalidEraParameters() {
        #expect(throws: ChainKitError(.outOfRange, "")) { try Era(period: 100, phase: 0) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try Era(period: 2, phase: 0) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try Era(period: 131_072, phase: 0) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try Era(period: 64, phase: 64) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try Era(period: 8192, phase: 1) }
    }

    @Test("death saturates instead of overflowing near UInt64.max")
    func eraDeathSaturates() {
        let era = Era.mortal(period: 64, currentBlock: .max)
        #expect(era.death(currentBlock: .max) == .max)
    }
}

// MARK: - Test types from scale.json's type definitions

extension FixedWidthInteger {
    /// A decimal string from a vector; a malformed one fails the test.
    fileprivate init(decimal: String) throws {
        self = try #require(Self(decimal), "'\(decimal)' is not a \(Self.self)")
    }
}

/// `enum HubEnum { Unit = 0, Amount(u32) = 1, Pair(u8, bool) = 2, Memo(Vec<u8>) = 3 }`
private enum HubEnum: SCALECodable, Equatable {
    case unit
    case amount(UInt32)
    case pair(UInt8, Bool)
    case memo([UInt8])

    func encode(to encoder: inout SCALEEncoder) {
        switch self {
        case .unit:
            encoder.encode(UInt8(0))
        case .amount(let amount):
            encoder.encode(UInt8(1))
            encoder.encode(amount)
        case .pair(let number, let flag):
            encoder.encode(UInt8(2))
            encoder.encode(number)
            encoder.encode(flag)
        case .memo(let memo):
            encoder.encode(UInt8(3))
            encoder.encodeBytes(memo)
        }
    }

    init(from decoder: inout SCALEDecoder) throws {
        switch try decoder.decodeByte() {
        case 0: self = .unit
        case 1: self = .amount(try decoder.decode())
        case 2: self = .pair(try decoder.decode(), try decoder.decode())
        case 3: self = .memo(try decoder.decodeBytes())
        case let index: throw ChainKitError(.invalidSCALE, "HubEnum has no variant \(index)")
        }
    }

    init(json: Any?) throws {
        if let name = json as? String {
            try #require(name == "Unit")
            self = .unit
            return
        }
        let object = try #require(json as? [String: Any])
        if let amount = object["Amount"] as? String {
            self = .amount(try UInt32(decimal: amount))
        } else if let pair = object["Pair"] as? [Any], pair.count == 2 {
            self = .pair(try UInt8(decimal: try #require(pair[0] as? String)), try #require(pair[1] as? Bool))
        } else {
            self = .memo(try Hex.decode(try #require(object["Memo"] as? String)))
        }
    }
}

/// `struct HubStruct { id: u32, flag: bool, tags: Vec<u16> }`
private struct HubStruct: SCALECodable, Equatable {
    var id: UInt32
    var flag: Bool
    var tags: [UInt16]

    func encode(to encoder: inout SCALEEncoder) {
        encoder.encode(id)
        encoder.encode(flag)
        encoder.encode(tags)
    }

    init(from decoder: inout SCALEDecoder) throws {
        id = try decoder.decode()
        flag = try decoder.decode()
        tags = try decoder.decode()
    }

    init(json: Any?) throws {
        let object = try #require(json as? [String: Any])
        id = try UInt32(decimal: try #require(object["id"] as? String))
        flag = try #require(object["flag"] as? Bool)
        tags = try #require(object["tags"] as? [String]).map { try UInt16(decimal: $0) }
    }
}

/// `enum MultiAddress { Id(AccountId32) = 0, Index(Compact<u32>) = 1, Raw(Vec<u8>) = 2, Address32([u8;32]) = 3, Address20([u8;20]) = 4 }`
private enum TestMultiAddress: SCALECodable, Equatable {
    case id([UInt8])
    case index(UInt32)
    case raw([UInt8])
    case address32([UInt8])
    case address20([UInt8])

    func encode(to encoder: inout SCALEEncoder) {
        switch self {
        case .id(let account):
            encoder.encode(UInt8(0))
            encoder.encodeRaw(account)
        case .index(let index):
            encoder.encode(UInt8(1))
            encoder.encodeCompact(index)
        case .raw(let bytes):
            encoder.encode(UInt8(2))
            encoder.encodeBytes(bytes)
        case .address32(let bytes):
            encoder.encode(UInt8(3))
            encoder.encodeRaw(bytes)
        case .address20(let bytes):
            encoder.encode(UInt8(4))
            encoder.encodeRaw(bytes)
        }
    }

    init(from decoder: inout SCALEDecoder) throws {
        switch try decoder.decodeByte() {
        case 0: self = .id(try decoder.decodeRaw(count: 32))
        case 1: self = .index(try decoder.decodeCompact())
        case 2: self = .raw(try decoder.decodeBytes())
        case 3: self = .address32(try decoder.decodeRaw(count: 32))
        case 4: self = .address20(try decoder.decodeRaw(count: 20))
        case let index: throw ChainKitError(.invalidSCALE, "MultiAddress has no variant \(index)")
        }
    }

    init(json: Any?) throws {
        let object = try #require(json as? [String: Any])
        try #require(object.count == 1)
        let (variant, value) = object.first!
        switch variant {
        case "Id": self = .id(try Hex.decode(try #require(value as? String), length: 32))
        case "Index": self = .index(try UInt32(decimal: try #require(value as? String)))
        case "Raw": self = .raw(try Hex.decode(try #require(value as? String)))
        case "Address32": self = .address32(try Hex.decode(try #require(value as? String), length: 32))
        case "Address20": self = .address20(try Hex.decode(try #require(value as? String), length: 20))
        default: throw ChainKitError(.invalidSCALE, "unknown MultiAddress variant \(variant)")
        }
    }
}
