import Foundation
import Testing

@testable import EVMKit

/// The words of `Tests/Fixtures/vectors/evm_u256.json`, made by `tools/evm/gen_uint256_vectors.py`
/// with Python's integers as the oracle.
@Suite struct U256VectorTests {
    struct Vector: Decodable {
        let kind: String
        let name: String
        let a: String
        let b: String
        let c: String?
        let result: String
    }

    struct File: Decodable { let vectors: [Vector] }

    static let vectors: [Vector] = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/vectors/evm_u256.json")
        guard let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(File.self, from: data) else { return [] }
        return file.vectors
    }()

    static let kinds = [
        "add", "sub", "mul", "div", "mod", "sdiv", "smod", "addmod", "mulmod", "exp", "shl", "shr", "sar", "signextend", "byte",
        "lt", "gt", "slt", "sgt", "eq",
    ]

    @Test("the golden file holds vectors of every operation")
    func everyKindPresent() {
        let present = Set(Self.vectors.map(\.kind))
        #expect(present == Set(Self.kinds))
    }

    @Test("each operation matches Python's integers", arguments: kinds)
    func matchesPython(kind: String) throws {
        let selected = Self.vectors.filter { $0.kind == kind }
        #expect(!selected.isEmpty)
        for v in selected {
            let a = try U256(hex: v.a), b = try U256(hex: v.b)
            let c = try v.c.map { try U256(hex: $0) } ?? .zero
            let got = Self.apply(kind, a, b, c)
            #expect(got == (try U256(hex: v.result)), "\(v.name): \(v.a) \(v.b) \(v.c ?? "")")
        }
    }

    static func apply(_ kind: String, _ a: U256, _ b: U256, _ c: U256) -> U256 {
        switch kind {
        case "add": a &+ b
        case "sub": a &- b
        case "mul": a &* b
        case "div": a / b
        case "mod": a % b
        case "sdiv": a.signedDivided(by: b)
        case "smod": a.signedRemainder(dividingBy: b)
        case "addmod": a.addMod(b, c)
        case "mulmod": a.mulMod(b, c)
        case "exp": a.power(b)
        case "shl": b.shiftedLeft(by: a)
        case "shr": b.shiftedRight(by: a)
        case "sar": b.arithmeticShiftedRight(by: a)
        case "signextend": b.signExtended(fromByte: a)
        case "byte": b.byte(at: a)
        case "lt": a < b ? .one : .zero
        case "gt": a > b ? .one : .zero
        case "slt": a.signedLessThan(b) ? .one : .zero
        case "sgt": b.signedLessThan(a) ? .one : .zero
        case "eq": a == b ? .one : .zero
        default: .max
        }
    }
}
