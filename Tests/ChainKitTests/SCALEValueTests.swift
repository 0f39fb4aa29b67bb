import ChainKit
import Testing

@Suite("SCALE values by registry type")
struct SCALEValueTests {
    @Test("every constant and storage default of every fixture decodes and re-encodes to its bytes", arguments: MetadataFixture.allCases)
    func roundTrip(fixture: MetadataFixture) throws {
        let metadata = try fixture.metadata
        var checked = 0
        for pallet in metadata.pallets {
            for constant in pallet.constants {
                let value = try metadata.types.decodeValue(of: constant.type, from: constant.value)
                #expect(try metadata.types.encodeValue(value, as: constant.type) == constant.value, "\(pallet.name).\(constant.name)")
                checked += 1
            }
            for entry in pallet.storage?.entries ?? [] where entry.modifier == .default {
                let value = try metadata.types.decodeValue(of: entry.valueType, from: entry.defaultValue)
                #expect(try metadata.types.encodeValue(value, as: entry.valueType) == entry.defaultValue, "\(pallet.name).\(entry.name)")
                checked += 1
            }
        }
        #expect(checked > 20)
    }

    @Test("a decoded constant reads as the runtime defines it")
    func constants() throws {
        let agung = try MetadataFixture.peaqAgungV14.metadata
        #expect(try agung.decodeConstant(pallet: "System", name: "SS58Prefix") == .unsigned(42))
        #expect(try agung.decodeConstant(pallet: "Balances", name: "ExistentialDeposit").unsignedInteger != nil)
        #expect(throws: ChainKitError(.invalidTransaction, "")) { try agung.decodeConstant(pallet: "System", name: "Nope") }
        let version = try agung.decodeConstant(pallet: "System", name: "Version")
        #expect(version["spec_name"]?.string == "peaq-node-dev")
        #expect(version["nope"] == nil)
        #expect(version.fields?.count == 8)
        #expect(try agung.decodeStorageValue(pallet: "Timestamp", item: "Now", bytes: nil) == .unsigned(0))
        #expect(throws: ChainKitError(.invalidTransaction, "")) { try agung.decodeStorageValue(pallet: "Timestamp", item: "Nope", bytes: nil) }
        // An optional item with no value has none.
        let optional = try #require(
            agung.pallets.flatMap { pallet in (pallet.storage?.entries ?? []).map { (pallet.name, $0) } }.first { $0.1.modifier == .optional }
        )
        #expect(try agung.decodeStorageValue(pallet: optional.0, item: optional.1.name, bytes: nil) == nil)
    }

    /// A registry for the edge cases: ids are positions.
    private func registry(_ extra: [TinyMetadata.TypeEntry]) throws -> (PortableRegistry, first: MetadataTypeID) {
        var tiny = TinyMetadata()
        let first = UInt32(tiny.types.count)
        tiny.types += extra
        return (try tiny.metadata.types, MetadataTypeID(rawValue: first))
    }

    @Test("primitives decode and encode in their fixed widths")
    func primitives() throws {
        let tags: [UInt8] = Array(0...14)
        let (types, first) = try registry(tags.map { TinyMetadata.TypeEntry(definition: .primitive($0)) })
        func id(_ tag: UInt8) -> MetadataTypeID { MetadataTypeID(rawValue: first.rawValue + UInt32(tag)) }
        let cases: [(UInt8, [UInt8], SCALEValue)] = [
            (0, [1], .bool(true)),
            (1, [0x41, 0, 0, 0], .char("A")),
            (2, [0x10, 0x68, 0x75, 0x62, 0x64], .string("hubd")),
            (3, [0xFF], .unsigned(255)),
            (4, [0x02, 0x01], .unsigned(258)),
            (5, [1, 0, 0, 0], .unsigned(1)),
            (6, [0, 0, 0, 0, 0, 0, 0, 0x80], .unsigned(1 << 63)),
            (7, [UInt8](repeating: 0xFF, count: 16), .unsigned(.max)),
            (8, [7] + [UInt8](repeating: 0, count: 31), .wideInteger(littleEndian: [7] + [UInt8](repeating: 0, count: 31), signed: false)),
            (9, [0xFF], .signed(-1)),
            (10, [0xFE, 0xFF], .signed(-2)),
            (11, [0, 0, 0, 0x80], .signed(Int128(Int32.min))),
            (12, [1, 0, 0, 0, 0, 0, 0, 0], .signed(1)),
            (13, [UInt8](repeating: 0xFF, count: 16), .signed(-1)),
            (14, [UInt8](repeating: 0xFF, count: 32), .wideInteger(littleEndian: [UInt8](repeating: 0xFF, count: 32), signed: true)),
        ]
        for (tag, bytes, value) in cases {
            #expect(try types.decodeValue(of: id(tag), from: bytes) == value, "tag \(tag)")
            #expect(try types.encodeValue(value, as: id(tag)) == bytes, "tag \(tag)")
        }
        #expect(try types.encodeValue(.unsigned(7), as: id(8)) == [7] + [UInt8](repeating: 0, count: 31))
        #expect(try types.encodeValue(.signed(-1), as: id(14)) == [UInt8](repeating: 0xFF, count: 32))
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.decodeValue(of: id(0), from: [2]) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.decodeValue(of: id(1), from: [0, 0xD8, 0, 0]) }  // a surrogate
        #expect(throws: ChainKitError(.outOfRange, "")) { try types.encodeValue(.unsigned(256), as: id(3)) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try types.encodeValue(.signed(128), as: id(9)) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try types.encodeValue(.signed(-129), as: id(9)) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.encodeValue(.signed(1), as: id(3)) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.encodeValue(.string("x"), as: id(0)) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.encodeValue(.wideInteger(littleEndian: [1], signed: false), as: id(8)) }
        #expect(types.displayName(of: id(7)) == "u128")
    }

    @Test("composites, variants, sequences, arrays, tuples and compacts check their shape")
    func shapes() throws {
        let u8 = TinyMetadata.u8, u32 = TinyMetadata.u32, bool = TinyMetadata.bool
        let (types, first) = try registry([
            .init(path: ["hubd", "Pair"], definition: .composite([("id", u32), ("flag", bool)])),  // +0
            .init(path: ["hubd", "Choice"], definition: .variant([("None", 0, []), ("Some", 5, [(nil, u32)])])),  // +1
            .init(definition: .sequence(u32)),  // +2
            .init(definition: .array(length: 2, of: u32)),  // +3
            .init(definition: .tuple([u8, bool])),  // +4
            .init(path: ["hubd", "Perbill"], definition: .composite([(nil, u32)])),  // +5
            .init(definition: .compact(first0 + 5)),  // +6 Compact<Perbill>
            .init(definition: .bitSequence(store: u8, order: TinyMetadata.unitStruct)),  // +7
        ])
        func id(_ offset: UInt32) -> MetadataTypeID { MetadataTypeID(rawValue: first.rawValue + offset) }
        #expect(first.rawValue == first0)

        let pair = SCALEValue.composite([SCALEField(name: "id", .unsigned(1)), SCALEField(name: "flag", .bool(true))])
        #expect(try types.encodeValue(pair, as: id(0)) == [1, 0, 0, 0, 1])
        #expect(try types.decodeValue(of: id(0), from: [1, 0, 0, 0, 1]) == pair)
        // By name, in any order; by position without names.
        let swapped = SCALEValue.composite([SCALEField(name: "flag", .bool(true)), SCALEField(name: "id", .unsigned(1))])
        #expect(try types.encodeValue(swapped, as: id(0)) == [1, 0, 0, 0, 1])
        #expect(try types.encodeValue(.composite([SCALEField(.unsigned(1)), SCALEField(.bool(true))]), as: id(0)) == [1, 0, 0, 0, 1])
        #expect(throws: ChainKitError(.invalidSCALE, "")) {
            try types.encodeValue(.composite([SCALEField(name: "id", .unsigned(1)), SCALEField(name: "flog", .bool(true))]), as: id(0))
        }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.encodeValue(.composite([SCALEField(.unsigned(1))]), as: id(0)) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.encodeValue(.unsigned(1), as: id(0)) }

        #expect(try types.encodeValue(.variant(name: "Some", fields: [SCALEField(.unsigned(2))]), as: id(1)) == [5, 2, 0, 0, 0])
        #expect(try types.encodeValue(.variant(name: "", index: 0), as: id(1)) == [0])
        #expect(try types.decodeValue(of: id(1), from: [5, 2, 0, 0, 0]) == .variant(name: "Some", index: 5, fields: [SCALEField(.unsigned(2))]))
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.decodeValue(of: id(1), from: [1]) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.encodeValue(.variant(name: "Other"), as: id(1)) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.encodeValue(.variant(name: "Some"), as: id(1)) }

        #expect(try types.encodeValue(.sequence([.unsigned(1), .unsigned(2)]), as: id(2)) == [8, 1, 0, 0, 0, 2, 0, 0, 0])
        #expect(try types.decodeValue(of: id(2), from: [4, 1, 0, 0, 0]) == .sequence([.unsigned(1)]))
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.encodeValue(.bytes([1]), as: id(2)) }
        #expect(try types.encodeValue(.sequence([.unsigned(1), .unsigned(2)]), as: id(3)) == [1, 0, 0, 0, 2, 0, 0, 0])
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.encodeValue(.sequence([.unsigned(1)]), as: id(3)) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.decodeValue(of: id(3), from: [1, 0, 0, 0]) }

        #expect(try types.encodeValue(.composite([SCALEField(.unsigned(9)), SCALEField(.bool(false))]), as: id(4)) == [9, 0])
        #expect(types.displayName(of: id(4)) == "(u8, bool)")

        // Compact<Perbill>: the newtype is looked through both ways.
        #expect(try types.decodeValue(of: id(6), from: [0x04]) == .unsigned(1))
        #expect(try types.encodeValue(.unsigned(1), as: id(6)) == [0x04])
        #expect(try types.encodeValue(.composite([SCALEField(.unsigned(1))]), as: id(6)) == [0x04])
        #expect(throws: ChainKitError(.outOfRange, "")) { try types.encodeValue(.unsigned(1 << 32), as: id(6)) }
        #expect(throws: ChainKitError(.outOfRange, "")) { try types.decodeValue(of: id(6), from: [0x07, 0, 0, 0, 0, 1]) }
        #expect(types.displayName(of: id(6)) == "Compact<Perbill>")

        // BitVec<u8, _>: 10 bits in two store bytes.
        let bits = SCALEValue.bitSequence(bitCount: 10, storage: [0xFF, 0x03])
        #expect(try types.decodeValue(of: id(7), from: [40, 0xFF, 0x03]) == bits)
        #expect(try types.encodeValue(bits, as: id(7)) == [40, 0xFF, 0x03])
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.encodeValue(.bitSequence(bitCount: 10, storage: [1]), as: id(7)) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.decodeValue(of: id(7), from: [40, 0xFF]) }
    }

    private let first0 = UInt32(TinyMetadata.standardTypes.count)

    @Test("hostile registries and lengths are refused without trapping")
    func hostile() throws {
        let start = UInt32(TinyMetadata.standardTypes.count)
        let (types, first) = try registry([
            .init(path: ["hubd", "Loop"], definition: .composite([(nil, start)])),  // +0 contains itself
            .init(definition: .array(length: .max, of: TinyMetadata.unitStruct)),  // +1 4 billion zero-sized elements
            .init(definition: .array(length: 1_000, of: TinyMetadata.u32)),  // +2
            .init(definition: .sequence(TinyMetadata.byteVector)),  // +3 Vec<Vec<u8>>
            .init(definition: .compact(TinyMetadata.bool)),  // +4 Compact<bool>
            .init(definition: .bitSequence(store: TinyMetadata.u128, order: TinyMetadata.unitStruct)),  // +5
        ])
        func id(_ offset: UInt32) -> MetadataTypeID { MetadataTypeID(rawValue: first.rawValue + offset) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.decodeValue(of: id(0), from: [1, 2, 3]) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.encodeValue(.unsigned(1), as: id(0)) }
        #expect(try !types.isZeroSized(id(0)))
        #expect(!types.displayName(of: id(0)).isEmpty)
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.decodeValue(of: id(1), from: []) }
        #expect(try types.isZeroSized(id(1)))
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.decodeValue(of: id(2), from: [UInt8](repeating: 0, count: 100)) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.decodeValue(of: id(3), from: [0x03, 0xFF, 0xFF, 0xFF, 0xFF]) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.decodeValue(of: id(4), from: [0]) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.decodeValue(of: id(5), from: [4, 0]) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.isZeroSized(MetadataTypeID(rawValue: 9_999)) }
    }

    @Test("a registry that refers to a type it does not have is refused")
    func danglingReference() {
        var tiny = TinyMetadata()
        tiny.types.append(.init(definition: .composite([(nil, 9_999)])))
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try tiny.metadata }
    }

    @Test("zero-sized types shared down a deep tree take linear time, and their decode is bounded")
    func sharedZeroSizedTree() throws {
        // Type k is a struct of two fields of type k+1; the last is a unit struct: 2^40 zero-sized leaves.
        let start = UInt32(TinyMetadata.standardTypes.count)
        let depth: UInt32 = 40
        let entries: [TinyMetadata.TypeEntry] = (0..<depth).map { level in
            let next = level + 1 < depth ? start + level + 1 : TinyMetadata.unitStruct
            return .init(definition: .tuple([next, next]))
        }
        let (types, first) = try registry(entries)
        #expect(try types.isZeroSized(first))
        #expect(types.displayName(of: first).count < 4096)
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try types.decodeValue(of: first, from: []) }
    }
}
