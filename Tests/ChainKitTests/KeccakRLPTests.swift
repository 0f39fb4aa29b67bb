import ChainKit
import Testing

@Suite("Keccak-256 and RLP against the golden vectors")
struct KeccakRLPTests {
    @Test("keccak-256 matches every vector, one-shot and fed in pieces")
    func keccak() throws {
        for vector in try VectorFile("keccak").vectors {
            let input = try Hex.decode(vector.string("input"))
            let expected = try vector.string("keccak256")
            #expect(Hex.encode(Keccak256.hash(input)) == expected, "\(vector.name)")
            var pieces = Keccak256()
            for chunk in stride(from: 0, to: input.count, by: 7) { pieces.update(input[chunk..<min(input.count, chunk + 7)]) }
            #expect(Hex.encode(pieces.finalize()) == expected, "\(vector.name) in pieces")
        }
    }

    /// Builds the item a vector's `value` describes: hex strings are byte strings, arrays are lists.
    func item(_ value: Any, kind: String) throws -> RLPItem {
        if kind == "uint", let decimal = value as? String { return .uint(try UInt256(decimal: decimal)) }
        if let text = value as? String { return .bytes(try Hex.decode(text)) }
        let list = try #require(value as? [Any])
        return .list(try list.map { try item($0, kind: "bytes") })
    }

    @Test("every valid vector encodes to its bytes and decodes back")
    func rlpValid() throws {
        for vector in try VectorFile("rlp").vectors where vector["valid"] as? Bool == true {
            let kind = try vector.string("kind")
            let expected = try Hex.decode(vector.string("encoded"))
            let value = try item(vector["value"] as Any, kind: kind)
            #expect(RLP.encode(value) == expected, "\(vector.name)")
            #expect(try RLP.decode(expected) == value, "\(vector.name)")
            if kind == "uint" {
                #expect(try RLP.decode(expected).uint256("value") == UInt256(decimal: vector.string("value")), "\(vector.name)")
            }
        }
    }

    @Test("every invalid vector is refused with invalid_rlp")
    func rlpInvalid() throws {
        let invalid = try VectorFile("rlp").vectors.filter { $0["valid"] as? Bool == false }
        #expect(invalid.count >= 10)
        for vector in invalid {
            let bytes = try Hex.decode(vector.string("encoded"))
            let reason = vector["reason"] as? String ?? ""
            if vector.name.hasPrefix("invalid_uint") {
                // Well-formed RLP strings that are not canonical integers.
                #expect(throws: ChainKitError(.invalidRLP, "")) { try RLP.decode(bytes).uint256("value") }
            } else {
                #expect(throws: ChainKitError(.invalidRLP, ""), "\(vector.name): \(reason)") { try RLP.decode(bytes) }
            }
        }
    }

    @Test("hostile nesting is refused, not a stack overflow")
    func deepNesting() {
        let bomb = [UInt8](repeating: 0xC1, count: 10_000) + [0xC0]
        #expect(throws: ChainKitError(.invalidRLP, "")) { try RLP.decode(bomb) }
    }

    @Test("UInt256 decimal text round-trips at the edges and refuses what is not a canonical integer")
    func uint256() throws {
        for text in [
            "0", "1", "18446744073709551616", "340282366920938463463374607431768211456",
            "115792089237316195423570985008687907853269984665640564039457584007913129639935",
        ] {
            #expect(try UInt256(decimal: text).description == text)
        }
        #expect(try UInt256(decimal: "115792089237316195423570985008687907853269984665640564039457584007913129639935") == .max)
        for bad in ["", "-1", "01", "1e3", "115792089237316195423570985008687907853269984665640564039457584007913129639936"] {
            #expect(throws: ChainKitError(.outOfRange, "")) { try UInt256(decimal: bad) }
        }
    }
}
