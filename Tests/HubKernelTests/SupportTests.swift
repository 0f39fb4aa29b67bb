import Foundation
import Testing

@testable import HubKernel

@Suite("Kernel support code")
struct SupportTests {
    @Test(
        "RFC 3339 timestamps match an independent formatter (Python's datetime)",
        arguments: [
            (UInt64(0), "1970-01-01T00:00:00.000Z"),
            (951_782_400_123_000_000, "2000-02-29T00:00:00.123Z"),
            (1_800_000_000_999_999_999, "2027-01-15T08:00:00.999Z"),
            (4_102_444_799_000_000_000, "2099-12-31T23:59:59.000Z"),
        ]
    )
    func rfc3339(nanoseconds: UInt64, expected: String) {
        #expect(RFC3339.format(nanoseconds: nanoseconds) == expected)
    }

    @Test("JSON text escapes quotes, backslashes and control characters and parses back")
    func json() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("plain", "x")
        writer.field("tricky", "a\"b\\c\nd\u{01}é✓")
        writer.field("none", nil)
        writer.key("n")
        writer.int(UInt128.max)
        writer.stringMap("map", ["z": "1", "a": "2"])
        writer.endObject()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(writer.text.utf8)) as? [String: Any])
        #expect(object["tricky"] as? String == "a\"b\\c\nd\u{01}é✓")
        #expect(object["none"] is NSNull)
        #expect(writer.text.contains("\"n\":340282366920938463463374607431768211455"))
        #expect(writer.text.hasSuffix("\"map\":{\"a\":\"2\",\"z\":\"1\"}}"))
    }

    @Test("power-of-two chunks cover every index once")
    func chunks() {
        for count in [0, 1, 5, 8, 8_000, 30_001] {
            let chunks = powerOfTwoChunks(count, maxChunk: 2_048)
            #expect(chunks.reduce(0) { $0 + $1.count } == count)
            #expect(chunks.allSatisfy { $0.count <= 2_048 && $0.count.nonzeroBitCount == 1 })
            #expect(zip(chunks, chunks.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        }
    }

    @Test("time-ordered ids increase with time and are version 7")
    func timeOrderedIDs() async throws {
        let first = TransferID.timeOrdered()
        try await Task.sleep(for: .milliseconds(2))
        let second = TransferID.timeOrdered()
        #expect(first < second)
        #expect(Array(first.description)[14] == "7")
    }
}

@Suite("Ledger statistics support")
struct LedgerStatsSupportTests {
    @Test("a 256-bit sum of UInt128 amounts prints exactly in decimal")
    func wideSum() {
        var sum = WideSum()
        #expect(sum.description == "0")
        sum.add(5000)
        #expect(sum.description == "5000")
        var big = WideSum()
        big.add(.max)
        big.add(.max)
        big.add(2)
        // 2 × (2^128 − 1) + 2 = 2^129, checked with Python: str(2**129)
        #expect(big.description == "680564733841876926926749214863536422912")
        var huge = WideSum()
        for _ in 0..<1000 { huge.add(.max) }
        // 1000 × (2^128 − 1), checked with Python: str(1000 * (2**128 - 1))
        #expect(huge.description == "340282366920938463463374607431768211455000")
    }

    @Test("RFC 3339 times parse back to what format() writes; other forms do not parse")
    func parseRFC3339() {
        for nanoseconds: UInt64 in [0, 951_782_400_123_000_000, 1_795_000_000_999_000_000] {
            #expect(RFC3339.parse(RFC3339.format(nanoseconds: nanoseconds))?.nanoseconds == nanoseconds)
        }
        #expect(RFC3339.parse("2026-11-21T10:00:00Z")?.description == "2026-11-21T10:00:00.000Z")
        #expect(RFC3339.parse("2026-11-21T10:00:00.5Z")?.nanoseconds == RFC3339.parse("2026-11-21T10:00:00Z")!.nanoseconds + 500_000_000)
        #expect(RFC3339.parse("2026-11-21T10:00:00.123456789Z")?.nanoseconds.isMultiple(of: 10) == false)
        for bad in [
            "", "2026-11-21", "2026-11-21T10:00:00", "2026-11-21T10:00:00+00:00", "2026-11-21 10:00:00Z", "2026-11-21T10:00:00.Z",
            "1969-12-31T23:59:59Z", "2026-02-30X10:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T10:00:00.1234567890Z", "9999-01-01T00:00:00Z",
        ] {
            #expect(RFC3339.parse(bad) == nil, "\(bad)")
        }
    }
}

@Suite("HexText")
struct HexTextTests {
    @Test("encodes lowercase, decodes either case with or without 0x, refuses the rest")
    func roundTrip() {
        #expect(HexText.encode([0x00, 0xAB, 0xFF]) == "00abff")
        #expect(HexText.decode("00ABff") == [0x00, 0xAB, 0xFF])
        #expect(HexText.decode("0x00abff") == [0x00, 0xAB, 0xFF])
        #expect(HexText.decode("") == [])
        for bad in ["0", "0g", "0x1", "zz", "a b0", "0xx0"] { #expect(HexText.decode(bad) == nil, "\(bad)") }
        let bytes = (0..<256).map { UInt8($0) }
        #expect(HexText.decode(HexText.encode(bytes)) == bytes)
    }
}
