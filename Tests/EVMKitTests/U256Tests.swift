import Testing

@testable import EVMKit

@Suite struct U256Tests {
    @Test("a word round-trips through big-endian bytes")
    func bytesRoundTrip() throws {
        let word = try U256(hex: "0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20")
        #expect(word.bigEndianBytes == Array(1...32))
        #expect(U256(bigEndian: word.bigEndianBytes) == word)
    }
}
