import Foundation
import Testing

@testable import HubKernel

@Suite("the API's JSON coder")
struct HubJSONTests {
    struct Item: Codable, Equatable {
        var debitAccountId: String
        var amount: String?
        var timeoutSeconds: UInt32?
        var linked: Bool?
        var rpcURL: String?
        var metadata: [String: String]?
        var tags: [String]?
    }

    static let item = Item(
        debitAccountId: "a/b",
        amount: "12",
        timeoutSeconds: 30,
        linked: true,
        rpcURL: "http://x",
        metadata: ["orderId": "1", "z": "é \"q\" \n"],
        tags: ["x", "y"]
    )

    @Test("decoding agrees with JSONDecoder's snake_case strategy")
    func decodesLikeFoundation() throws {
        let json =
            #"{"debit_account_id":"a/b","amount":"12","timeout_seconds":30,"linked":true,"rpc_url":"http://x","metadata":{"orderId":"1","z":"é \"q\" \n"},"tags":["x","y"]}"#
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        var expected = try foundation.decode(Item.self, from: Data(json.utf8))
        let ours = try HubJSONDecoder().decode(Item.self, from: Array(json.utf8))
        // Where they differ, by design: JSONDecoder's strategy turns `rpc_url` into `rpcUrl` and
        // so never finds `rpcURL`, which its own encoder writes as `rpc_url`; this decoder does.
        #expect(expected.rpcURL == nil && ours.rpcURL == "http://x")
        expected.rpcURL = "http://x"
        #expect(expected == Self.item)
        #expect(ours == expected)
        // The Swift spelling is found too, as JSONDecoder's strategy finds it.
        let camel = #"{"debitAccountId":"a/b"}"#
        #expect(try HubJSONDecoder().decode(Item.self, from: Array(camel.utf8)).debitAccountId == "a/b")
    }

    @Test("encoding equals JSONEncoder's snake_case, sorted keys, unescaped slashes, byte for byte")
    func encodesLikeFoundation() throws {
        let foundation = JSONEncoder()
        foundation.keyEncodingStrategy = .convertToSnakeCase
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let expected = String(decoding: try foundation.encode(Self.item), as: UTF8.self)
        let ours = String(decoding: try HubJSONEncoder().encodeBytes(Self.item), as: UTF8.self)
        #expect(ours == expected)
        #expect(ours.contains(#""orderId":"1""#), "free-form map keys are written as sent")
    }

    @Test(
        "snake_case spellings",
        arguments: [
            ("debitAccountId", "debit_account_id"), ("rpcURL", "rpc_url"), ("URLPath", "url_path"), ("v2Name", "v2_name"),
            ("id", "id"), ("aBCd", "a_b_cd"), ("already_snake", "already_snake"),
        ]
    )
    func snakeCase(swift: String, json: String) {
        #expect(JSONKeys.snakeCase(swift) == json)
        #expect(JSONKeys.matches(json, swift))
    }

    @Test("camelCase for types that list their keys", arguments: [("debit_account_id", "debitAccountId"), ("_private_", "_private_"), ("id", "id")])
    func camelCase(json: String, swift: String) {
        #expect(JSONKeys.camelCase(json) == swift)
    }

    @Test(
        "text that is not JSON, or that two readers could read differently, is refused",
        arguments: [
            #"{"a":1,"a":2}"#,  // a duplicate member
            "{\"a\":\"\u{01}\"}",  // a raw control character
            #"{"a":"\ud800"}"#,  // a lone surrogate
            #"{"a":01}"#, #"{"a":1.}"#, #"{"a":+1}"#, #"{"a":tru}"#, "[1,]", "{\"a\":1} x", "", #"{"a":"\q"}"#,
        ]
    )
    func refused(text: String) {
        #expect(throws: DecodingError.self) { try HubJSONDecoder().decode([String: Int].self, from: Array(text.utf8)) }
    }

    @Test("invalid UTF-8 and nesting beyond the limit are refused")
    func refusedBytes() {
        #expect(throws: DecodingError.self) { try HubJSONDecoder().decode(String.self, from: [0x22, 0xC3, 0x28, 0x22]) }
        let deep = String(repeating: "[", count: JSONParser.maximumDepth + 1) + String(repeating: "]", count: JSONParser.maximumDepth + 1)
        #expect(throws: DecodingError.self) { try HubJSONDecoder().decode([Int].self, from: Array(deep.utf8)) }
    }

    @Test("escapes and surrogate pairs decode to the characters they name")
    func escapes() throws {
        let text = #""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#
        #expect(try HubJSONDecoder().decode(String.self, from: Array(text.utf8)) == "a\"\\/\u{8}\u{c}\n\r\té😀")
    }

    @Test("a 128-bit amount's text is exact, and integers refuse what does not fit")
    func numbers() throws {
        #expect(try HubJSONDecoder().decode(UInt64.self, from: Array("18446744073709551615".utf8)) == .max)
        #expect(throws: DecodingError.self) { try HubJSONDecoder().decode(UInt64.self, from: Array("18446744073709551616".utf8)) }
        #expect(throws: DecodingError.self) { try HubJSONDecoder().decode(Int.self, from: Array("1.0".utf8)) }
        #expect(try HubJSONDecoder().decode(Double.self, from: Array("1.5e3".utf8)) == 1500)
    }

    @Test("absent and null optionals decode as nil; a null where a value is required names the member")
    func nulls() throws {
        let item = try HubJSONDecoder().decode(Item.self, from: Array(#"{"debit_account_id":"x","amount":null}"#.utf8))
        #expect(item.amount == nil && item.linked == nil)
        do {
            _ = try HubJSONDecoder().decode(Item.self, from: Array(#"{"debit_account_id":null}"#.utf8))
            Issue.record("null decoded into a String")
        } catch DecodingError.valueNotFound(_, let context) {
            #expect(ProblemMiddleware.path(context.codingPath) == "debit_account_id")
        }
    }
}
