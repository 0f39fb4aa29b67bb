import Foundation

/// The API's JSON decoder: `snake_case` members (or the Swift spelling), numbers exact to the
/// type asked for, and a record of which members each type read, from which ``StrictDecoding``
/// reports the unknown ones.
///
/// The hub's own rather than `JSONDecoder` because request bodies are its hot path: decoding a
/// batch of transfers through `JSONDecoder` with a key strategy and a tracking wrapper cost a
/// quarter of the server's CPU under load (`make bench-http`). This parses once into a tree and
/// compares member names in place, with no per-object dictionary and no key conversion.
public struct HubJSONDecoder: Sendable {
    public init() {}

    /// Decodes `type` from `data`, ignoring members the type does not read.
    /// - Throws: `DecodingError`s as `JSONDecoder` reports them (`dataCorrupted` with an empty
    ///   coding path for text that is not JSON).
    public func decode<Value: Decodable>(_ type: Value.Type, from data: some Collection<UInt8>) throws -> Value {
        try decodeTracking(type, from: data).value
    }

    /// Decodes and returns every object the types opened, for the unknown-member check.
    func decodeTracking<Value: Decodable>(_ type: Value.Type, from data: some Collection<UInt8>) throws -> (value: Value, objects: [JSONObject]) {
        let root: JSONNode
        do {
            root = try JSONParser.parse(data)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON: \(error)."))
        }
        let session = DecodingSession()
        let value = try JSONNodeDecoder(node: root, path: .root, session: session).unbox(Value.self)
        return (value, session.opened)
    }
}

/// What one decoding shares: the objects opened as keyed containers, in the order they were.
final class DecodingSession {
    var opened: [JSONObject] = []
}

/// A `Decoder` over one node of the tree.
struct JSONNodeDecoder: Decoder {
    let node: JSONNode
    let path: CodingPathNode
    let session: DecodingSession

    var codingPath: [any CodingKey] { path.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = node else { throw mismatch([String: Any].self) }
        if object.path == nil {
            object.path = path
            session.opened.append(object)
        }
        return KeyedDecodingContainer(JSONKeyedContainer<Key>(object: object, path: path, session: session))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = node else { throw mismatch([Any].self) }
        return JSONUnkeyedContainer(elements: elements, path: path, session: session)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func mismatch(_ type: Any.Type) -> DecodingError {
        if case .null = node {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "Expected \(type) but found null."))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "Expected \(type) but found \(node.kindDescription)."))
    }

    /// `T` from this node: the standard scalars directly, the Foundation types the way
    /// `JSONDecoder` reads them by default, everything else through its own `init(from:)`.
    func unbox<T: Decodable>(_ type: T.Type) throws -> T {
        switch type {
        case is String.Type: return try decode(String.self) as! T
        case is Bool.Type: return try decode(Bool.self) as! T
        case is Int.Type: return try integer(Int.self) as! T
        case is Int64.Type: return try integer(Int64.self) as! T
        case is UInt32.Type: return try integer(UInt32.self) as! T
        case is UInt8.Type: return try integer(UInt8.self) as! T
        case is URL.Type:
            guard let url = URL(string: try decode(String.self)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Expected a URL."))
            }
            return url as! T
        case is Data.Type:
            guard let data = Data(base64Encoded: try decode(String.self)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Expected Base64 text."))
            }
            return data as! T
        case is Decimal.Type:
            guard case .number(let text) = node, let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw mismatch(Decimal.self)
            }
            return decimal as! T
        default:
            return try T(from: self)
        }
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let text) = node else { throw mismatch(type) }
        guard let value = T(text, radix: 10) else {
            // Out of range, or not a whole number (`1.5`, `1e3`): say which member and what fits.
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: StrictDecoding.integerRange(type)))
        }
        return value
    }

    func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
        guard case .number(let text) = node else { throw mismatch(type) }
        guard let value = T(text), value.isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "The number \(text) does not fit \(type)."))
        }
        return value
    }
}

extension JSONNodeDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        if case .null = node { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let value) = node else { throw mismatch(type) }
        return value
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let value) = node else { throw mismatch(type) }
        return value
    }

    func decode(_ type: Double.Type) throws -> Double { try floatingPoint(type) }
    func decode(_ type: Float.Type) throws -> Float { try floatingPoint(type) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unbox(type) }
}

/// An object's members by key. Looking a key up marks the member it finds as read.
struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let path: CodingPathNode
    let session: DecodingSession

    var codingPath: [any CodingKey] { path.codingPath }

    var allKeys: [Key] {
        object.names.compactMap { Key(stringValue: $0) ?? Key(stringValue: JSONKeys.camelCase($0)) }
    }

    /// The member `key` names (its own spelling first, then its `snake_case` one), marked read.
    private func member(_ key: Key) -> JSONNode? {
        let name = key.stringValue
        object.asked.append(name)
        let names = object.names
        var found = names.firstIndex(of: name)
        if found == nil {
            for index in names.indices where JSONKeys.matches(names[index], name) {
                found = index
                break
            }
        }
        guard let found else { return nil }
        object.read[found] = true
        return object.values[found]
    }

    private func required(_ key: Key) throws -> JSONNodeDecoder {
        guard let node = member(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No member for \(key.stringValue)."))
        }
        return JSONNodeDecoder(node: node, path: path.appending(key: key), session: session)
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let node = member(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No member for \(key.stringValue)."))
        }
        if case .null = node { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try required(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try required(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try required(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try required(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try required(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try required(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try required(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try required(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try required(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try required(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try required(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try required(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try required(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try required(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try required(key).unbox(type) }

    /// Absent and `null` both read as `nil`, as with `JSONDecoder`: one lookup, where the
    /// protocol's default would make three.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let node = member(key) else { return nil }
        if case .null = node { return nil }
        return try JSONNodeDecoder(node: node, path: path.appending(key: key), session: session).unbox(type)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodeIfPresent(Optional<String>.self, key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodeIfPresent(Optional<Bool>.self, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodeIfPresent(Optional<Int>.self, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodeIfPresent(Optional<Int64>.self, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decodeIfPresent(Optional<UInt8>.self, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decodeIfPresent(Optional<UInt32>.self, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decodeIfPresent(Optional<UInt64>.self, key) }

    private func decodeIfPresent<T: Decodable>(_ type: T?.Type, _ key: Key) throws -> T? {
        guard let node = member(key) else { return nil }
        if case .null = node { return nil }
        return try JSONNodeDecoder(node: node, path: path.appending(key: key), session: session).unbox(T.self)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try required(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try required(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JSONNodeDecoder(node: member(Key(stringValue: "super")!) ?? .null, path: path.appending(key: AnyKey("super")), session: session)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONNodeDecoder(node: member(key) ?? .null, path: path.appending(key: key), session: session)
    }
}

/// An array's elements in order.
struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONNode]
    let path: CodingPathNode
    let session: DecodingSession
    private(set) var currentIndex = 0

    init(elements: [JSONNode], path: CodingPathNode, session: DecodingSession) {
        self.elements = elements
        self.path = path
        self.session = session
    }

    var codingPath: [any CodingKey] { path.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next(_ type: Any.Type) throws -> JSONNodeDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                .init(codingPath: path.appending(index: currentIndex).codingPath, debugDescription: "The array has no more elements.")
            )
        }
        defer { currentIndex += 1 }
        return JSONNodeDecoder(node: elements[currentIndex], path: path.appending(index: currentIndex), session: session)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any?.self, .init(codingPath: codingPath, debugDescription: "The array has no more elements."))
        }
        if case .null = elements[currentIndex] {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type).decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type).decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type).decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type).decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).decode(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).unbox(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(type).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([Any].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next(Any.self) }
}
