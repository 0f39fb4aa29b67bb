import Foundation
import Testing

@testable import HubKernel

/// The encoder writes text as it goes and sorts each object's members once the object is
/// complete; these check it against Foundation's `JSONEncoder` on every shape the Codable API
/// can produce, and pin what Foundation does not decide (duplicate names, escaped names).
@Suite("the API's JSON encoder")
struct HubJSONEncoderTests {
    enum Payment: Codable, Equatable {
        case card(lastFour: String, expiryMonth: UInt8)
        case wallet(String)
        case cash
    }

    struct Leaf: Codable, Equatable {
        var zetaValue: Int
        var alphaName: String
    }

    struct Shapes: Codable, Equatable {
        var zulu: String
        var alphaLeaf: Leaf
        var leaves: [Leaf]
        var matrix: [[Int]]
        var payments: [Payment]
        var missing: String?
        var present: String?
        var small: Int64
        var large: UInt64
        var negative: Int
        var ratio: Double
        var whole: Double
        var flag: Bool
        var bytes: Data
        var link: URL
        var id: UUID
        var counts: [String: [Int]]
        var nested: [String: Leaf]
        var empty: [String: Int]
        var none: [Int]
        var text: String
    }

    static let shapes = Shapes(
        zulu: "z",
        alphaLeaf: Leaf(zetaValue: 1, alphaName: "a"),
        leaves: [Leaf(zetaValue: 2, alphaName: "b"), Leaf(zetaValue: -3, alphaName: "c/d")],
        matrix: [[1, 2], [], [3]],
        payments: [.card(lastFour: "4242", expiryMonth: 12), .wallet("0xabc"), .cash],
        missing: nil,
        present: "here",
        small: .min,
        large: .max,
        negative: -42,
        ratio: 0.25,
        whole: 2,
        flag: false,
        bytes: Data([0, 1, 2, 250]),
        link: URL(string: "https://example.com/a?b=c")!,
        id: UUID(uuidString: "0192F4C1-7D2E-7B3A-9C4D-5E6F7A8B9C0D")!,
        counts: ["b": [2], "a": [1, 1], "aa": []],
        nested: ["orderId": Leaf(zetaValue: 9, alphaName: "n")],
        empty: [:],
        none: [],
        text: "tab\t quote\" backslash\\ newline\n bell\u{7} é 😀"
    )

    @Test("every shape the Codable API produces is written as JSONEncoder writes it, byte for byte")
    func shapesLikeFoundation() throws {
        let foundation = JSONEncoder()
        foundation.keyEncodingStrategy = .convertToSnakeCase
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let expected = String(decoding: try foundation.encode(Self.shapes), as: UTF8.self)
        let ours = try HubJSONEncoder().encodeBytes(Self.shapes)
        #expect(String(decoding: ours, as: UTF8.self) == expected)
        // And it reads back as the same value.
        #expect(try HubJSONDecoder().decode(Shapes.self, from: ours) == Self.shapes)
    }

    @Test("top-level scalars and arrays are documents of their own")
    func topLevel() throws {
        #expect(try HubJSONEncoder().encodeBytes("a\"b") == Array(#""a\"b""#.utf8))
        #expect(try HubJSONEncoder().encodeBytes(UInt64.max) == Array("18446744073709551615".utf8))
        #expect(try HubJSONEncoder().encodeBytes([Leaf(zetaValue: 1, alphaName: "x")]) == Array(#"[{"alpha_name":"x","zeta_value":1}]"#.utf8))
        #expect(try HubJSONEncoder().encodeBytes([String: Int]()) == Array("{}".utf8))
    }

    /// Writes a member twice, a nested container before and after its siblings, and a value
    /// through a super-encoder after the members that follow it.
    struct Unusual: Encodable {
        enum Keys: String, CodingKey { case repeated, late, early, base }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(1, forKey: .repeated)
            var late = container.nestedContainer(keyedBy: Keys.self, forKey: .late)
            let base = container.superEncoder(forKey: .base)
            try container.encode("e", forKey: .early)
            try container.encode(2, forKey: .repeated)
            try late.encode(true, forKey: .early)
            var array = late.nestedUnkeyedContainer(forKey: .repeated)
            try array.encode(Leaf(zetaValue: 3, alphaName: "z"))
            try array.encodeNil()
            var single = base.singleValueContainer()
            try single.encode("from the super-encoder")
        }
    }

    @Test("a name written twice keeps its last value; containers written out of order land where they belong")
    func unusualOrder() throws {
        let text = String(decoding: try HubJSONEncoder().encodeBytes(Unusual()), as: UTF8.self)
        #expect(
            text
                == #"{"base":"from the super-encoder","early":"e","late":{"early":true,"repeated":[{"alpha_name":"z","zeta_value":3},null]},"repeated":2}"#
        )
    }

    @Test("free-form map keys are sorted by their bytes, written as sent and escaped where JSON needs it")
    func mapKeys() throws {
        let map = ["b": 1, "B": 2, "a\"q": 3, "é": 4, "tab\t": 5, "_x": 6]
        let text = String(decoding: try HubJSONEncoder().encodeBytes(map), as: UTF8.self)
        #expect(text == #"{"B":2,"_x":6,"a\"q":3,"b":1,"tab\t":5,"é":4}"#)
        // Every ordering of the same map gives the same bytes.
        for _ in 0..<5 {
            let shuffled = Dictionary(uniqueKeysWithValues: map.shuffled())
            #expect(String(decoding: try HubJSONEncoder().encodeBytes(shuffled), as: UTF8.self) == text)
        }
    }

    struct Measurement: Encodable {
        var readings: [Double]
    }

    @Test("a number JSON cannot hold is refused, naming where it is")
    func nonFinite() throws {
        do {
            _ = try HubJSONEncoder().encodeBytes(["sensor": Measurement(readings: [1.5, .infinity])])
            Issue.record("infinity was encoded")
        } catch EncodingError.invalidValue(_, let context) {
            #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["sensor", "readings", "1"])
        }
    }
}
