import Foundation
import Synchronization

/// Decoding that refuses members the target type does not know.
///
/// `JSONDecoder` ignores members a `Decodable` never asks for, so `{"role": "organiser"}` sent
/// where the field is `roles` creates a member and answers 201: the client believes it made an
/// organiser. Like Stripe, the hub refuses such a body, naming the member. ``HubJSONDecoder``
/// records, for every object a type opens, the members it read and the keys it asked for; after
/// decoding, any member present in the JSON but never read is an ``UnknownMembers`` error with its
/// path. Free-form objects (`metadata`) decode every key they
/// hold, so they are never flagged. One rule for every body the kernel and the rails decode, and
/// for plugin configuration.
public enum StrictDecoding {
    /// Members present in the input that the type did not read, each with its JSON path
    /// (`transfers[2].ref.rails`) and, where one is close, the member that was probably meant.
    public struct UnknownMembers: Error, Sendable, Equatable, CustomStringConvertible {
        public struct Member: Sendable, Equatable {
            public var path: String
            public var suggestion: String?
        }

        public var members: [Member]

        /// The first member's path, for a problem's `field`.
        public var field: String { members.first?.path ?? "" }

        public var description: String {
            let listed = members.prefix(5).map { member in
                "`\(member.path)`" + (member.suggestion.map { " (did you mean `\($0)`?)" } ?? "")
            }
            let more = members.count > 5 ? " and \(members.count - 5) more" : ""
            return "unknown member\(members.count == 1 ? "" : "s") \(listed.joined(separator: ", "))\(more)"
        }
    }

    /// Decodes `type` from `data` (``HubJSONDecoder``: `snake_case` members), refusing unknown
    /// members.
    /// - Throws: `DecodingError`s, or ``UnknownMembers``.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: some Collection<UInt8>) throws -> Value {
        let (value, objects) = try HubJSONDecoder().decodeTracking(type, from: data)
        if let unknown = unknownMembers(in: objects) { throw unknown }
        return value
    }

    /// Members of the objects types opened that no type read, in document order.
    static func unknownMembers(in objects: [JSONObject]) -> UnknownMembers? {
        var members: [UnknownMembers.Member] = []
        for object in objects {
            for (index, name) in object.names.enumerated() where !object.read[index] {
                members.append(
                    .init(
                        path: path(object.path?.codingPath ?? [], AnyKey(name)),
                        suggestion: MemberSuggestion.closest(snakeCase(name), among: Set(object.asked).map(snakeCase).sorted())
                    )
                )
            }
        }
        return members.isEmpty ? nil : UnknownMembers(members: members)
    }

    /// What an integer member accepts, for the error of a number that does not fit.
    static func integerRange<T: FixedWidthInteger>(_ type: T.Type) -> String {
        "Expected a whole number from \(T.min) to \(T.max)."
    }

    /// `fooBar` → `foo_bar`: how a member the decoder saw in camel case was spelled in the JSON.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                if !result.isEmpty { result.append("_") }
                result.append(contentsOf: character.lowercased())
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// JSON-path text of a coding path (`a.b[2].c`), in the API's snake case.
    static func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
        var text = ""
        for key in codingPath + (last.map { [$0] } ?? []) {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + snakeCase(key.stringValue)
            }
        }
        return text
    }
}

/// The member a client probably meant when it sent one the type does not know.
enum MemberSuggestion {
    /// The known member nearest to `name` by edit distance, if it is near (a typo, a plural).
    static func closest(_ name: String, among known: [String]) -> String? {
        let scored = known.map { ($0, distance(Array(name), Array($0))) }.filter { $0.1 <= max(1, name.count / 3) }
        return scored.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }?.0
    }

    /// Edit distance counting a swap of neighbours as one edit (`rial` → `rail`), as typos go.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = Swift.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = Swift.min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}

struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
