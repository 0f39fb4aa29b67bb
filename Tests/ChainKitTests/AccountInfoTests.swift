import ChainKit
import Testing

@Suite("System.Account decoding by the metadata's type")
struct AccountInfoTests {
    private static let alice = try! Hex.decode("0xd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d")

    /// `AccountInfo` bytes written field by field from the type definitions in the fixtures:
    /// `nonce: u32, consumers: u32, providers: u32, sufficients: u32, data: AccountData<u128>`, where the data is
    /// `free, reserved, misc_frozen, fee_frozen` (legacy) or `free, reserved, frozen, flags: ExtraFlags(u128)`.
    private func accountBytes(nonce: UInt32, consumers: UInt32, providers: UInt32, sufficients: UInt32, balances: [UInt128]) -> [UInt8] {
        var encoder = SCALEEncoder()
        for field in [nonce, consumers, providers, sufficients] { encoder.encodeInteger(field) }
        for balance in balances { encoder.encodeInteger(balance) }
        return encoder.bytes
    }

    @Test(
        "the legacy layout (misc_frozen, fee_frozen) decodes",
        arguments: [MetadataFixture.substrateNodeV14, .peaqAgungV14, .peaqMainnetGenesisV14]
    )
    func legacyLayout(fixture: MetadataFixture) throws {
        let metadata = try fixture.metadata
        let free: UInt128 = 1_234_567_890_123_456_789_012_345
        let bytes = accountBytes(nonce: 42, consumers: 1, providers: 2, sufficients: 3, balances: [free, 5 * 1_000_000_000_000_000_000, 300, 200])
        #expect(bytes.count == 80)
        let info = try AccountInfo(storageValue: bytes, metadata: metadata)
        #expect(info.nonce == 42)
        #expect(info.consumers == 1)
        #expect(info.providers == 2)
        #expect(info.sufficients == 3)
        #expect(info.data.free == free)
        #expect(info.data.reserved == 5_000_000_000_000_000_000)
        #expect(info.data.miscFrozen == 300)
        #expect(info.data.feeFrozen == 200)
        #expect(info.data.frozen == 300)
        #expect(info.data.flags == nil)
        #expect(info.data.isLegacyLayout)
        #expect(
            info
                == AccountInfo(
                    nonce: 42,
                    consumers: 1,
                    providers: 2,
                    sufficients: 3,
                    data: AccountData(free: free, reserved: 5_000_000_000_000_000_000, miscFrozen: 300, feeFrozen: 200)
                )
        )

        // The same bytes come out of the metadata's encoder for the named value.
        let entry = try #require(metadata.storageEntry(pallet: "System", item: "Account"))
        let value = SCALEValue.composite([
            SCALEField(name: "nonce", .unsigned(42)), SCALEField(name: "consumers", .unsigned(1)),
            SCALEField(name: "providers", .unsigned(2)), SCALEField(name: "sufficients", .unsigned(3)),
            SCALEField(
                name: "data",
                .composite([
                    SCALEField(name: "free", .unsigned(free)), SCALEField(name: "reserved", .unsigned(5_000_000_000_000_000_000)),
                    SCALEField(name: "misc_frozen", .unsigned(300)), SCALEField(name: "fee_frozen", .unsigned(200)),
                ])
            ),
        ])
        #expect(try metadata.types.encodeValue(value, as: entry.valueType) == bytes)
        #expect(try metadata.types.decodeValue(of: entry.valueType, from: bytes) == value)
    }

    @Test("the current layout (frozen, flags) decodes", arguments: [MetadataFixture.rococoV15, .frontierV15])
    func currentLayout(fixture: MetadataFixture) throws {
        let metadata = try fixture.metadata
        let flags: UInt128 = 1 << 127
        let bytes = accountBytes(nonce: .max, consumers: 0, providers: 1, sufficients: 0, balances: [.max, 0, 10, flags])
        let info = try AccountInfo(storageValue: bytes, metadata: metadata)
        #expect(info.nonce == UInt64(UInt32.max))
        #expect(info.consumers == 0)
        #expect(info.providers == 1)
        #expect(info.sufficients == 0)
        #expect(info.data.free == .max)
        #expect(info.data.reserved == 0)
        #expect(info.data.frozen == 10)
        #expect(info.data.flags == flags)
        #expect(info.data.miscFrozen == nil)
        #expect(info.data.feeFrozen == nil)
        #expect(!info.data.isLegacyLayout)
        #expect(info.data == AccountData(free: .max, reserved: 0, frozen: 10, flags: flags))
    }

    @Test("an absent entry reads as the item's default", arguments: MetadataFixture.allCases)
    func absentEntry(fixture: MetadataFixture) throws {
        let info = try AccountInfo(storageValue: nil, metadata: try fixture.metadata)
        #expect(info.nonce == 0)
        #expect(info.providers == 0)
        #expect(info.data.free == 0)
        #expect(info.data.frozen == 0)
        // The current layout's default marks the account as on the new reserve logic (ExtraFlags' top bit).
        #expect(info.data.flags == (info.data.isLegacyLayout ? nil : 1 << 127))
    }

    @Test("bytes that do not fit the layout are refused", arguments: MetadataFixture.allCases)
    func badBytes(fixture: MetadataFixture) throws {
        let metadata = try fixture.metadata
        let good = accountBytes(nonce: 1, consumers: 0, providers: 1, sufficients: 0, balances: [1, 0, 0, 0])
        #expect(throws: Never.self) { try AccountInfo(storageValue: good, metadata: metadata) }
        for bad in [Array(good.dropLast()), good + [0], [], Array(good.prefix(16))] {
            #expect(throws: ChainKitError(.invalidSCALE, "")) { try AccountInfo(storageValue: bad, metadata: metadata) }
        }
    }

    @Test("a value without AccountInfo's fields is refused")
    func wrongShape() {
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try AccountInfo(value: .unsigned(1)) }
        let noData = SCALEValue.composite([SCALEField(name: "nonce", .unsigned(1))])
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try AccountInfo(value: noData) }
        let oddData = SCALEValue.composite([
            SCALEField(name: "free", .unsigned(1)), SCALEField(name: "reserved", .unsigned(1)), SCALEField(name: "locked", .unsigned(1)),
        ])
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try AccountData(value: oddData) }
        let hugeNonce = SCALEValue.composite([
            SCALEField(name: "nonce", .unsigned(UInt128(UInt64.max) + 1)), SCALEField(name: "consumers", .unsigned(0)),
            SCALEField(name: "providers", .unsigned(0)), SCALEField(name: "sufficients", .unsigned(0)),
            SCALEField(
                name: "data",
                .composite([
                    SCALEField(name: "free", .unsigned(0)), SCALEField(name: "reserved", .unsigned(0)), SCALEField(name: "frozen", .unsigned(0)),
                    SCALEField(name: "flags", .unsigned(0)),
                ])
            ),
        ])
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try AccountInfo(value: hugeNonce) }
    }

    @Test("the storage key of //Alice's account comes from the metadata's hasher", arguments: MetadataFixture.allCases)
    func aliceKey(fixture: MetadataFixture) throws {
        let vector = try SubstrateVector(file: "hashing", named: "storage_system_account_alice")
        #expect(try vector.strings("keys_scale") == [Hex.encode(Self.alice)])
        let key = try AccountInfo.storageKey(accountID: Self.alice, metadata: try fixture.metadata)
        #expect(key.bytes == (try vector.bytes("storage_key")))
        #expect(key == StorageKey(pallet: "System", item: "Account", keys: [(.blake2_128Concat, Self.alice)]))
    }
}
