import Foundation
import Testing

/// A committed golden-vector file from `Tests/Fixtures/vectors/` (made by `tools/vectors/`).
struct WebhookVectorFile {
    let vectors: [[String: Any]]

    init(_ name: String) throws {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/vectors/\(name).json")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        vectors = try #require(root["vectors"] as? [[String: Any]])
    }

    /// The vectors of one `kind`. An empty selection fails the test: a loop over nothing would
    /// pass without checking anything.
    func of(kind: String, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        let selected = vectors.filter { $0["kind"] as? String == kind }
        if selected.isEmpty { Issue.record("no vectors of kind \(kind)", sourceLocation: sourceLocation) }
        return selected
    }
}

extension Dictionary where Key == String, Value == Any {
    func text(_ key: String) throws -> String { try #require(self[key] as? String, "missing \(key) in \(self["name"] ?? "?")") }
    var vectorName: String { self["name"] as? String ?? "?" }
}

/// `0x…` hex as bytes.
func bytes(fromHex text: String) throws -> [UInt8] {
    let digits = Array((text.hasPrefix("0x") ? String(text.dropFirst(2)) : text).utf8)
    try #require(digits.count % 2 == 0)
    return try stride(from: 0, to: digits.count, by: 2).map { index in
        try #require(UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16))
    }
}
