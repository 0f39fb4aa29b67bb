import ChainKit
import Testing

@Suite("zstd")
struct ZstdTests {
    /// What the frames below hold.
    static let text = Array("a block, a block, a block: RLP repeats itself".utf8)

    @Test("round-trips what it compresses, empty input too", arguments: [0, 1, 45, 100_000])
    func roundTrip(length: Int) throws {
        let input = (0..<length).map { UInt8(truncatingIfNeeded: $0 % 251) }
        #expect(try Zstd.decompress(Zstd.compress(input)) == input)
        #expect(try Zstd.decompress(Zstd.compress(input, level: 19)) == input)
    }

    @Test("repetitive data shrinks")
    func shrinks() {
        let block = Array(repeating: Self.text, count: 200).flatMap { $0 }
        #expect(Zstd.compress(block).count < block.count / 20)
    }

    @Test("decompresses frames the reference zstd CLI wrote (v1.5.4, level 3), with and without a checksum")
    func referenceFrames() throws {
        let plain = try Hex.decode("28b52ffd202d1d0100e86120626c6f636b2c203a20524c50207265706561747320697473656c66010044ca11")
        let checked = try Hex.decode("28b52ffd242d1d0100e86120626c6f636b2c203a20524c50207265706561747320697473656c66010044ca11d4a5627d")
        #expect(try Zstd.decompress(plain) == Self.text)
        #expect(try Zstd.decompress(checked) == Self.text)
    }

    @Test("refuses a frame that does not declare its size (a streamed one)")
    func unknownSize() throws {
        let streamed = try Hex.decode("28b52ffd04581d0100e86120626c6f636b2c203a20524c50207265706561747320697473656c66010044ca11d4a5627d")
        #expect(throws: ChainKitError(.invalidZstd, "")) { try Zstd.decompress(streamed) }
    }

    @Test("refuses a frame that declares more than the limit, before allocating it")
    func overLimit() throws {
        let frame = Zstd.compress([UInt8](repeating: 7, count: 4096))
        #expect(try Zstd.decompress(frame, limit: 4096).count == 4096)
        #expect(throws: ChainKitError(.invalidZstd, "")) { try Zstd.decompress(frame, limit: 4095) }
    }

    @Test("refuses garbage, a truncated frame and a corrupted one")
    func malformed() throws {
        let frame = Zstd.compress(Self.text)
        #expect(throws: ChainKitError(.invalidZstd, "")) { try Zstd.decompress([]) }
        #expect(throws: ChainKitError(.invalidZstd, "")) { try Zstd.decompress(Array("not zstd at all".utf8)) }
        #expect(throws: ChainKitError(.invalidZstd, "")) { try Zstd.decompress(Array(frame.dropLast(3))) }
        var corrupted = try Hex.decode("28b52ffd242d1d0100e86120626c6f636b2c203a20524c50207265706561747320697473656c66010044ca11d4a5627d")
        corrupted[12] ^= 0x01  // a literal byte: the content checksum no longer matches
        #expect(throws: ChainKitError(.invalidZstd, "")) { try Zstd.decompress(corrupted) }
    }
}
