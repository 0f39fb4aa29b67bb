public import Foundation

/// The API's JSON encoder: `snake_case` members, keys sorted (the same value always gives the
/// same bytes, so a reply recorded with an `Idempotency-Key` equals the one first sent), no
/// escaped slashes, no floating-point money (amounts are strings by type, not by this encoder).
///
/// The hub's own rather than `JSONEncoder` for the same reason as ``HubJSONDecoder``: replies to
/// transfer batches spent a fifth of the server's CPU in `JSONEncoder` and its key conversion.
public struct HubJSONEncoder: Sendable {
    public init() {}

    public func encode(_ value: some Encodable) throws -> Data {
        Data(try encodeBytes(value))
    }

    public func encodeBytes(_ value: some Encodable) throws -> [UInt8] {
        var text = JSONText(capacity: 256)
        text.append(try JSONValueEncoder.box(value, path: []))
        return text.bytes
    }
}

/// A value on its way to text. Objects and arrays are classes so that a container handed out
/// before its contents are encoded (nested containers) fills the same storage.
enum EncodedValue {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array(EncodedArray)
    case object(EncodedObject)
}

final class EncodedArray {
    var elements: [EncodedValue] = []
}

final class EncodedObject {
    var members: [(name: String, value: EncodedValue)] = []
}

/// Dictionaries with `String` keys are free-form maps: their keys are written as they are, never
/// converted to `snake_case` (metadata keys belong to the client).
protocol StringKeyedEncodableMap {
    func encodedMembers(path: [any CodingKey]) throws -> [(name: String, value: EncodedValue)]
}

extension Dictionary: StringKeyedEncodableMap where Key == String, Value: Encodable {
    func encodedMembers(path: [any CodingKey]) throws -> [(name: String, value: EncodedValue)] {
        try map { key, value in (key, try JSONValueEncoder.box(value, path: path + [AnyKey(key)])) }
    }
}

/// An `Encoder` for one value: whatever container the value asks for becomes its ``storage``.
final class JSONValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var storage: EncodedValue?

    init(path: [any CodingKey]) { codingPath = path }

    /// `value` as an ``EncodedValue``: scalars directly, the Foundation types as `JSONEncoder`
    /// writes them by default, anything else through its own `encode(to:)`.
    static func box(_ value: some Encodable, path: [any CodingKey]) throws -> EncodedValue {
        switch value {
        case let string as String: return .string(string)
        case let bool as Bool: return .bool(bool)
        case let int as Int: return .number(String(int))
        case let int as Int64: return .number(String(int))
        case let int as UInt32: return .number(String(int))
        case let int as UInt8: return .number(String(int))
        case let url as URL: return .string(url.absoluteString)
        case let data as Data: return .string(data.base64EncodedString())
        case let decimal as Decimal: return .number(decimal.description)
        case let map as any StringKeyedEncodableMap:
            let object = EncodedObject()
            object.members = try map.encodedMembers(path: path)
            return .object(object)
        default:
            let encoder = JSONValueEncoder(path: path)
            try value.encode(to: encoder)
            // A value that wrote nothing is an empty object, as with `JSONEncoder` when nested.
            return encoder.storage ?? .object(EncodedObject())
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: EncodedObject
        if case .object(let existing) = storage {
            object = existing
        } else {
            object = EncodedObject()
            storage = .object(object)
        }
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: EncodedArray
        if case .array(let existing) = storage {
            array = existing
        } else {
            array = EncodedArray()
            storage = .array(array)
        }
        return JSONUnkeyedEncodingContainer(array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { JSONSingleValueEncodingContainer(encoder: self) }
}

/// Numbers as JSON text; non-finite floating point cannot be JSON and is refused, as
/// `JSONEncoder` refuses it.
enum EncodedNumber {
    static func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ value: T, path: [any CodingKey]) throws -> EncodedValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: "\(value) is not a JSON number."))
        }
        // Whole numbers as integers (`2`, not `2.0`), as JSONEncoder writes them.
        if value == value.rounded(), abs(value) < 1e15 { return .number(String(Int64(value))) }
        return .number(value.description)
    }
}

struct JSONSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: JSONValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    func encodeNil() { encoder.storage = .null }
    func encode(_ value: Bool) { encoder.storage = .bool(value) }
    func encode(_ value: String) { encoder.storage = .string(value) }
    func encode(_ value: Double) throws { encoder.storage = try EncodedNumber.floatingPoint(value, path: codingPath) }
    func encode(_ value: Float) throws { encoder.storage = try EncodedNumber.floatingPoint(value, path: codingPath) }
    func encode(_ value: Int) { encoder.storage = .number(String(value)) }
    func encode(_ value: Int8) { encoder.storage = .number(String(value)) }
    func encode(_ value: Int16) { encoder.storage = .number(String(value)) }
    func encode(_ value: Int32) { encoder.storage = .number(String(value)) }
    func encode(_ value: Int64) { encoder.storage = .number(String(value)) }
    func encode(_ value: UInt) { encoder.storage = .number(String(value)) }
    func encode(_ value: UInt8) { encoder.storage = .number(String(value)) }
    func encode(_ value: UInt16) { encoder.storage = .number(String(value)) }
    func encode(_ value: UInt32) { encoder.storage = .number(String(value)) }
    func encode(_ value: UInt64) { encoder.storage = .number(String(value)) }
    func encode<T: Encodable>(_ value: T) throws { encoder.storage = try JSONValueEncoder.box(value, path: codingPath) }
}

struct JSONKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: EncodedObject
    let codingPath: [any CodingKey]

    private func put(_ value: EncodedValue, _ key: Key) {
        object.members.append((JSONKeys.snakeCase(key.stringValue), value))
    }

    func encodeNil(forKey key: Key) { put(.null, key) }
    func encode(_ value: Bool, forKey key: Key) { put(.bool(value), key) }
    func encode(_ value: String, forKey key: Key) { put(.string(value), key) }
    func encode(_ value: Double, forKey key: Key) throws { put(try EncodedNumber.floatingPoint(value, path: codingPath + [key]), key) }
    func encode(_ value: Float, forKey key: Key) throws { put(try EncodedNumber.floatingPoint(value, path: codingPath + [key]), key) }
    func encode(_ value: Int, forKey key: Key) { put(.number(String(value)), key) }
    func encode(_ value: Int8, forKey key: Key) { put(.number(String(value)), key) }
    func encode(_ value: Int16, forKey key: Key) { put(.number(String(value)), key) }
    func encode(_ value: Int32, forKey key: Key) { put(.number(String(value)), key) }
    func encode(_ value: Int64, forKey key: Key) { put(.number(String(value)), key) }
    func encode(_ value: UInt, forKey key: Key) { put(.number(String(value)), key) }
    func encode(_ value: UInt8, forKey key: Key) { put(.number(String(value)), key) }
    func encode(_ value: UInt16, forKey key: Key) { put(.number(String(value)), key) }
    func encode(_ value: UInt32, forKey key: Key) { put(.number(String(value)), key) }
    func encode(_ value: UInt64, forKey key: Key) { put(.number(String(value)), key) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { put(try JSONValueEncoder.box(value, path: codingPath + [key]), key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedObject()
        put(.object(nested), key)
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<NestedKey>(object: nested, codingPath: codingPath + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = EncodedArray()
        put(.array(nested), key)
        return JSONUnkeyedEncodingContainer(array: nested, codingPath: codingPath + [key])
    }

    func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    func superEncoder(forKey key: Key) -> any Encoder {
        // The sub-encoder's value lands under `key` once written: give it an object to fill.
        let nested = EncodedObject()
        put(.object(nested), key)
        let encoder = JSONValueEncoder(path: codingPath + [key])
        encoder.storage = .object(nested)
        return encoder
    }
}

struct JSONUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let array: EncodedArray
    let codingPath: [any CodingKey]
    var count: Int { array.elements.count }

    private var nextPath: [any CodingKey] { codingPath + [AnyKey(intValue: array.elements.count)!] }

    func encodeNil() { array.elements.append(.null) }
    func encode(_ value: Bool) { array.elements.append(.bool(value)) }
    func encode(_ value: String) { array.elements.append(.string(value)) }
    func encode(_ value: Double) throws { array.elements.append(try EncodedNumber.floatingPoint(value, path: nextPath)) }
    func encode(_ value: Float) throws { array.elements.append(try EncodedNumber.floatingPoint(value, path: nextPath)) }
    func encode(_ value: Int) { array.elements.append(.number(String(value))) }
    func encode(_ value: Int8) { array.elements.append(.number(String(value))) }
    func encode(_ value: Int16) { array.elements.append(.number(String(value))) }
    func encode(_ value: Int32) { array.elements.append(.number(String(value))) }
    func encode(_ value: Int64) { array.elements.append(.number(String(value))) }
    func encode(_ value: UInt) { array.elements.append(.number(String(value))) }
    func encode(_ value: UInt8) { array.elements.append(.number(String(value))) }
    func encode(_ value: UInt16) { array.elements.append(.number(String(value))) }
    func encode(_ value: UInt32) { array.elements.append(.number(String(value))) }
    func encode(_ value: UInt64) { array.elements.append(.number(String(value))) }
    func encode<T: Encodable>(_ value: T) throws { array.elements.append(try JSONValueEncoder.box(value, path: nextPath)) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedObject()
        let path = nextPath
        array.elements.append(.object(nested))
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<NestedKey>(object: nested, codingPath: path))
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = EncodedArray()
        let path = nextPath
        array.elements.append(.array(nested))
        return JSONUnkeyedEncodingContainer(array: nested, codingPath: path)
    }

    func superEncoder() -> any Encoder {
        let nested = EncodedObject()
        let encoder = JSONValueEncoder(path: nextPath)
        array.elements.append(.object(nested))
        encoder.storage = .object(nested)
        return encoder
    }
}
