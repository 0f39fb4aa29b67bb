import Foundation
import Testing

/// A committed golden-vector file from `Tests/Fixtures/vectors/` (made by `tools/vectors/`).
struct VectorFile {
    let vectors: [[String: Any]]

    init(_ name: String) throws {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/vectors/\(name).json")
        let data = try Data(contentsOf: url)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        vectors = try #require(root["vectors"] as? [[String: Any]])
    }

    /// The vectors whose `kind` is `kind` (all when `nil`). An empty selection is recorded as a
    /// test failure: a loop over no vectors would pass without checking anything.
    func of(kind: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        let selected = kind.map { kind in vectors.filter { $0["kind"] as? String == kind } } ?? vectors
        if selected.isEmpty { Issue.record("no vectors of kind \(kind ?? "any")", sourceLocation: sourceLocation) }
        return selected
    }
}

extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) throws -> String { try #require(self[key] as? String, "missing \(key) in \(self["name"] ?? "?")") }
    var name: String { self["name"] as? String ?? "?" }
}
