import Foundation
import Testing

@testable import HubKernel

@Suite("strict decoding: unknown members and misfitting numbers")
struct StrictDecodingTests {
    struct Ref: Decodable, Equatable { var rail: String; var id: String? }
    struct Body: Decodable, Equatable {
        var scale: UInt8
        var roles: [String]?
        var refs: [Ref]?
        var metadata: [String: String]?
    }

    static func decode(_ json: String) throws -> Body {
        try StrictDecoding.decode(Body.self, from: Array(json.utf8))
    }

    @Test("what the type reads decodes as before, free-form maps keep their keys")
    func known() throws {
        let body = try Self.decode(#"{"scale": 2, "roles": ["member"], "refs": [{"rail": "a"}], "metadata": {"order_id": "1", "Any-Key": "x"}}"#)
        #expect(body == Body(scale: 2, roles: ["member"], refs: [Ref(rail: "a", id: nil)], metadata: ["order_id": "1", "Any-Key": "x"]))
    }

    @Test(
        "unknown members are named with their path and the member probably meant",
        arguments: [
            (#"{"scale": 2, "role": "x"}"#, "role", "roles"),
            (#"{"scale": 2, "refs": [{"rail": "a"}, {"rail": "b", "rial": "c"}]}"#, "refs[1].rial", "rail"),
            (#"{"scale": 2, "totally_else": 1}"#, "totally_else", nil),
        ] as [(String, String, String?)]
    )
    func unknown(json: String, path: String, suggestion: String?) {
        #expect(throws: StrictDecoding.UnknownMembers(members: [.init(path: path, suggestion: suggestion)])) { try Self.decode(json) }
    }

    @Test("a number that does not fit names its member", arguments: ["-1", "1.5", "300", "1e3"])
    func misfit(number: String) {
        do {
            _ = try Self.decode(#"{"scale": \#(number)}"#)
            Issue.record("\(number) decoded into a UInt8")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(ProblemMiddleware.path(context.codingPath) == "scale")
            #expect(context.debugDescription == "Expected a whole number from 0 to 255.")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
