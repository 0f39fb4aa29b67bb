import ChainKit
import Foundation
import Testing

/// One vector of a golden file, looked up by name.
///
/// Parameterised tests take vector *names* as arguments (strings are `Sendable`; the JSON dictionaries are
/// not) and load the vector inside the test, so each vector is its own test case and a failure names it.
struct SubstrateVector {
    let fields: [String: Any]

    /// The names of the vectors in `file` whose `kind` is `kind` (all when nil), in file order.
    static func names(in file: String, kind: String? = nil) throws -> [String] {
        try VectorFile(file).of(kind: kind).map(\.name)
    }

    /// The distinct `kind`s in `file`, so a suite can check it consumes every one.
    static func kinds(in file: String) throws -> Set<String> {
        Set(try VectorFile(file).vectors.compactMap { $0["kind"] as? String })
    }

    init(file: String, named name: String) throws {
        let matches = try VectorFile(file).vectors.filter { $0.name == name }
        try #require(matches.count == 1, "\(file).json has \(matches.count) vectors named \(name)")
        fields = matches[0]
    }

    var name: String { fields.name }

    /// Whether `key` holds JSON `null`.
    func isNull(_ key: String) -> Bool { fields[key] is NSNull }

    func string(_ key: String) throws -> String { try fields.string(key) }

    /// A `0x` hex field as bytes.
    func bytes(_ key: String) throws -> [UInt8] { try Hex.decode(string(key)) }

    /// A small JSON number (a length, prefix, period or block number).
    func int(_ key: String) throws -> Int { try #require(fields[key] as? Int, "missing number \(key) in \(name)") }

    /// A JSON number as UInt64.
    func uint64(_ key: String) throws -> UInt64 { UInt64(try int(key)) }

    func bool(_ key: String) throws -> Bool { try #require(fields[key] as? Bool, "missing bool \(key) in \(name)") }

    /// A list of strings (`hashers`, `keys_scale`).
    func strings(_ key: String) throws -> [String] {
        try #require(fields[key] as? [String], "missing string list \(key) in \(name)")
    }

    subscript(key: String) -> Any? { fields[key] }
}
