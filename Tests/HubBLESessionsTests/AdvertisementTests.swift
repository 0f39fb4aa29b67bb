import HubKernel
import Testing

@testable import HubBLESessions

/// The advertising data a payee's phone puts on air, checked octet by octet against the AD
/// structure format of the Bluetooth Core Specification (Vol 3, Part C, §11: length, AD type,
/// data; little-endian UUIDs), and the reverse on what real scanners hand over.
@Suite("BLE advertising data")
struct AdvertisementTests {
    let eid = EphemeralID(hex: "a1b2c3d4e5")!

    @Test("service-data form: flags, the 16-bit UUID list with FEED, service data FEED + 5 EID octets")
    func serviceDataBytes() {
        let bytes = Advertisement.serviceData(for: eid)
        #expect(
            bytes == [
                0x02, 0x01, 0x06,  // Flags: LE General Discoverable, BR/EDR not supported
                0x03, 0x03, 0xED, 0xFE,  // Complete List of 16-bit Service UUIDs: 0xFEED, little-endian
                0x08, 0x16, 0xED, 0xFE, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5,  // Service Data - 16-bit UUID: FEED, then the EID
            ]
        )
        #expect(bytes.count <= Advertisement.legacyCapacity)
        #expect(HexText.encode(bytes) == "0201060303edfe0816edfea1b2c3d4e5")
    }

    @Test("local-name form: GOTCHU + the EID's 10 hex digits as the Complete Local Name, with FEED listed")
    func localNameBytes() {
        let bytes = Advertisement.localNameData(for: eid)
        let name = Array("GOTCHUa1b2c3d4e5".utf8)
        #expect(bytes == [0x02, 0x01, 0x06, 0x03, 0x03, 0xED, 0xFE, UInt8(name.count + 1), 0x09] + name)
        #expect(bytes.count == 25)
        #expect(bytes.count <= Advertisement.legacyCapacity)
        #expect(Advertisement.localName(for: eid) == "GOTCHUa1b2c3d4e5")
    }

    @Test("both forms parse back to the EID")
    func roundTrip() throws {
        for _ in 0..<50 {
            let random = EphemeralID.random()
            #expect(try Advertisement.ephemeralID(in: Advertisement.serviceData(for: random)) == random)
            #expect(try Advertisement.ephemeralID(in: Advertisement.localNameData(for: random)) == random)
        }
    }

    @Test("a 31-octet advertisement padded with zeros, followed by a scan response")
    func paddedWithScanResponse() throws {
        var bytes = Advertisement.serviceData(for: eid)
        bytes += Array(repeating: 0, count: 31 - bytes.count)
        // A scan response with a TX power level (0x0A) and a shortened name of another device.
        bytes += [0x02, 0x0A, 0xF4, 0x05, 0x08] + Array("Phon".utf8)
        #expect(try Advertisement.ephemeralID(in: bytes) == eid)
    }

    @Test("extra AD structures and other services' UUIDs and data are skipped")
    func extraStructures() throws {
        let bytes: [UInt8] =
            [0x02, 0x01, 0x1A]  // flags as an iPhone sends them
            + [0x05, 0x02, 0x0D, 0x18, 0x0F, 0x18]  // incomplete 16-bit list: heart rate, battery
            + [0x05, 0x16, 0x0F, 0x18, 0x64, 0x00]  // service data of the battery service
            + [0x07, 0xFF, 0x4C, 0x00, 0x10, 0x02, 0x0B, 0x00]  // Apple manufacturer data
            + [0x08, 0x16, 0xED, 0xFE, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5]
        #expect(try Advertisement.ephemeralID(in: bytes) == eid)
    }

    @Test("the app's local name beside FEED in a 128-bit UUID list, as some stacks report it")
    func localNameWith128BitList() throws {
        let name = Array("GOTCHUA1B2C3D4E5".utf8)
        let bytes: [UInt8] = [0x11, 0x07] + Advertisement.serviceUUID128LittleEndian + [UInt8(name.count + 1), 0x09] + name
        #expect(try Advertisement.ephemeralID(in: bytes) == eid)
    }

    @Test(
        "garbage is refused with a reason",
        arguments: [
            ([], "empty"),
            ([0x00, 0x00, 0x00], "only padding"),
            ([0x02, 0x01, 0x06, 0x08, 0x16, 0xED, 0xFE, 0xA1, 0xB2], "truncated"),  // service data cut short
            ([0x1F], "truncated"),
            ([0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18], "no 0xFEED"),  // another service only
            ([0x07, 0x16, 0xED, 0xFE, 0xA1, 0xB2, 0xC3, 0xD4], "carries 4 octets"),  // an EID one octet short
            ([0x02, 0x16, 0xED], "shorter than its 16-bit UUID"),
            ([0x04, 0x03, 0xED, 0xFE, 0x00], "not a multiple of 2"),
            ([0x02, 0x01, 0x06] + [0x11, 0x09] + Array("GOTCHUa1b2c3d4e5".utf8), "without the 0xFEED"),  // name without the UUID
            ([0x03, 0x03, 0xED, 0xFE, 0x11, 0x09] + Array("GOTCHUa1b2c3d4zz".utf8), "10 hex digits"),
        ] as [([UInt8], String)]
    )
    func garbage(bytes: [UInt8], reason: String) {
        #expect {
            try Advertisement.ephemeralID(in: bytes)
        } throws: { error in
            (error as? AdvertisementParseError)?.reason.contains(reason) == true
        }
    }

    @Test("EIDs: 10 hex digits either case, 0x allowed; anything else is refused")
    func ephemeralIDText() {
        #expect(EphemeralID(hex: "A1B2C3D4E5") == eid)
        #expect(EphemeralID(hex: "0xa1b2c3d4e5") == eid)
        #expect(eid.description == "a1b2c3d4e5")
        for bad in ["", "a1b2c3d4e", "a1b2c3d4e5f6", "g1b2c3d4e5", "a1b2c3d4e 5", "0x"] {
            #expect(EphemeralID(hex: bad) == nil, "\(bad)")
        }
        #expect(EphemeralID(bytes: [1, 2, 3, 4]) == nil)
        // 40 random bits: two draws colliding would point at a broken generator.
        #expect(Set((0..<1000).map { _ in EphemeralID.random() }).count == 1000)
    }
}
