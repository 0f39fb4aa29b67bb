public import Foundation
import Synchronization

/// Decoding that refuses members the target type does not know.
///
/// `JSONDecoder` ignores members a `Decodable` never asks for, so `{"role": "organiser"}` sent
/// where the field is `roles` creates a member and answers 201: the client believes it made an
/// organiser. Like Stripe, the hub refuses such a body, naming the member. This wraps the real
/// decoder: every keyed container records the keys the type asked for (decoded, or looked for
/// and absent), and after decoding, any key present in the JSON but never asked for is an
/// ``UnknownMembers`` error with its path. Free-form objects (`metadata`) decode every key they
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

    /// Decodes `type` from `data` with `decoder`, refusing unknown members.
    /// - Throws: the decoder's `DecodingError`s, or ``UnknownMembers``.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, using decoder: JSONDecoder) throws -> Value {
        let tracker = KeyTracker()
        var configured = decoder
        configured.userInfo[KeyTracker.userInfoKey] = tracker
        let value = try configured.decode(Tracked<Value>.self, from: data).value
        if let unknown = tracker.unknownMembers() { throw unknown }
        return value
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

/// What every keyed container of one decoding saw and read.
final class KeyTracker: Sendable {
    static let userInfoKey = CodingUserInfoKey(rawValue: "hub.strictDecoding.tracker")!

    private struct Container {
        var path: [any CodingKey]
        var present: [String]
        var asked: Set<String> = []
    }

    private let containers = Mutex<[Int: Container]>([:])
    private let counter = Mutex(0)

    func register(path: [any CodingKey], present: [String]) -> Int {
        let id = counter.withLock { value in
            value += 1
            return value
        }
        containers.withLock { $0[id] = Container(path: path, present: present) }
        return id
    }

    func asked(_ key: String, in id: Int) {
        containers.withLock { _ = $0[id]?.asked.insert(key) }
    }

    func unknownMembers() -> StrictDecoding.UnknownMembers? {
        let members = containers.withLock { containers in
            containers.keys.sorted().flatMap { id -> [StrictDecoding.UnknownMembers.Member] in
                let container = containers[id]!
                return container.present.filter { !container.asked.contains($0) }.map { key in
                    let asked = container.asked.map(StrictDecoding.snakeCase)
                    return .init(
                        path: StrictDecoding.path(container.path, AnyKey(key)),
                        suggestion: Self.closest(StrictDecoding.snakeCase(key), among: asked)
                    )
                }
            }
        }
        return members.isEmpty ? nil : StrictDecoding.UnknownMembers(members: members)
    }

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

/// Decodes `Value` through a ``TrackingDecoder``.
struct Tracked<Value: Decodable>: Decodable {
    var value: Value
    init(from decoder: any Decoder) throws {
        guard let tracker = decoder.userInfo[KeyTracker.userInfoKey] as? KeyTracker else {
            value = try Value(from: decoder)
            return
        }
        value = try Value(from: TrackingDecoder(base: decoder, tracker: tracker))
    }
}

/// A decoder that hands out containers recording the keys asked for.
struct TrackingDecoder: Decoder {
    let base: any Decoder
    let tracker: KeyTracker

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let container = try base.container(keyedBy: type)
        let id = tracker.register(path: codingPath, present: try presentKeys())
        return KeyedDecodingContainer(TrackingKeyedContainer(base: container, tracker: tracker, id: id))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        TrackingUnkeyedContainer(base: try base.unkeyedContainer(), tracker: tracker)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TrackingSingleValueContainer(base: try base.singleValueContainer(), tracker: tracker)
    }

    /// Every member of the object at this level, as the base decoder names them (the key
    /// strategy applied), whatever the type's own `CodingKeys` are.
    private func presentKeys() throws -> [String] {
        try base.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
    }
}

struct TrackingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>
    let tracker: KeyTracker
    let id: Int

    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }

    private func ask(_ key: Key) { tracker.asked(key.stringValue, in: id) }

    /// An integer member. JSONDecoder reports a number that does not fit (`-1` for an unsigned
    /// field, `1.5`, `300` for a byte) without saying where; this says which member, and what
    /// fits, so the client gets a 422 naming the field instead of "not valid JSON".
    private func integer<T: FixedWidthInteger & Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        ask(key)
        do {
            return try base.decode(type, forKey: key)
        } catch let error as DecodingError {
            throw error
        } catch {
            // Foundation's own "number not representable" error, which its decoder would report
            // as "not valid JSON" with no path.
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [key], debugDescription: StrictDecoding.integerRange(type)))
        }
    }

    func contains(_ key: Key) -> Bool {
        ask(key)
        return base.contains(key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        ask(key)
        return try base.decodeNil(forKey: key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { ask(key); return try base.decode(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { ask(key); return try base.decode(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { ask(key); return try base.decode(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { ask(key); return try base.decode(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        ask(key)
        // Free-form maps and the types JSONDecoder reads its own way go to it directly (a
        // `[String: String]` keeps its keys as sent: no key strategy, nothing to flag).
        if T.self is any DecodedAsIs.Type { return try base.decode(type, forKey: key) }
        // Everything else through a decoder for the member's value, so nested objects are tracked.
        return try T(from: TrackingDecoder(base: try base.superDecoder(forKey: key), tracker: tracker))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        ask(key)
        return try TrackingDecoder(base: try base.superDecoder(forKey: key), tracker: tracker).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        ask(key)
        return TrackingUnkeyedContainer(base: try base.nestedUnkeyedContainer(forKey: key), tracker: tracker)
    }

    func superDecoder() throws -> any Decoder { TrackingDecoder(base: try base.superDecoder(), tracker: tracker) }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ask(key)
        return TrackingDecoder(base: try base.superDecoder(forKey: key), tracker: tracker)
    }
}

struct TrackingUnkeyedContainer: UnkeyedDecodingContainer {
    var base: any UnkeyedDecodingContainer
    let tracker: KeyTracker

    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int? { base.count }
    var isAtEnd: Bool { base.isAtEnd }
    var currentIndex: Int { base.currentIndex }

    mutating func decodeNil() throws -> Bool { try base.decodeNil() }

    /// An integer element, with its index in the error when it does not fit (see the keyed one).
    private mutating func integer<T: FixedWidthInteger & Decodable>(_ type: T.Type) throws -> T {
        let index = currentIndex
        do {
            return try base.decode(type)
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath + [AnyKey(intValue: index)!], debugDescription: StrictDecoding.integerRange(type))
            )
        }
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try base.decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self is any DecodedAsIs.Type { return try base.decode(type) }
        return try T(from: TrackingDecoder(base: try base.superDecoder(), tracker: tracker))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try TrackingDecoder(base: try base.superDecoder(), tracker: tracker).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        TrackingUnkeyedContainer(base: try base.nestedUnkeyedContainer(), tracker: tracker)
    }

    mutating func superDecoder() throws -> any Decoder { TrackingDecoder(base: try base.superDecoder(), tracker: tracker) }
}

struct TrackingSingleValueContainer: SingleValueDecodingContainer {
    let base: any SingleValueDecodingContainer
    let tracker: KeyTracker

    var codingPath: [any CodingKey] { base.codingPath }

    func decodeNil() -> Bool { base.decodeNil() }
    func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
    func decode(_ type: String.Type) throws -> String { try base.decode(type) }
    func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
    func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }
    func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try base.decode(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try base.decode(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try base.decode(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try base.decode(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try base.decode(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try base.decode(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try base.decode(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try base.decode(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try base.decode(type) }
}

/// Types decoded by the base decoder itself rather than through tracking: string-keyed maps (free
/// form: every key is data, and JSONDecoder applies no key strategy to them) and the values it
/// decodes its own way.
protocol DecodedAsIs {}
extension Dictionary: DecodedAsIs where Key == String {}
extension Date: DecodedAsIs {}
extension Data: DecodedAsIs {}
extension URL: DecodedAsIs {}
extension Decimal: DecodedAsIs {}
