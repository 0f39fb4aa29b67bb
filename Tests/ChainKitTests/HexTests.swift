import ChainKit
import Testing

@Suite("Hex")
struct HexTests {
    @Test("round-trips with and without prefix, either case")
    func roundTrip() throws {
        #expect(Hex.encode([0x00, 0xAB, 0xFF]) == "0x00abff")
        #expect(try Hex.decode("0x00abff") == [0x00, 0xAB, 0xFF])
        #expect(try Hex.decode("00ABFF") == [0x00, 0xAB, 0xFF])
        #expect(try Hex.decode("0x") == [])
    }

    @Test("malformed hex is refused with the reason", arguments: ["0x0", "0xzz", "12 3", "0x1g"])
    func malformed(text: String) {
        #expect(throws: ChainKitError(.invalidHex, "")) { try Hex.decode(text) }
    }

    @Test("a wrong length is refused")
    func wrongLength() {
        #expect(throws: ChainKitError(.invalidHex, "")) { try Hex.decode("0x0102", length: 3) }
    }
}
