/// The `Encoder` for one value of a ``JSONDocument``: whatever container the value asks for
/// becomes its ``storage``, and the document writes it out once the value is complete.
final class JSONValueEncoder: Encoder {
    let document: JSONDocument
    let path: CodingPathNode
    var storage: PendingValue?

    var codingPath: [any CodingKey] { path.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(document: JSONDocument, path: CodingPathNode) {
        self.document = document
        self.path = path
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: PendingObject
        if case .object(let existing) = storage {
            object = existing
        } else {
            object = PendingObject()
            storage = .object(object)
        }
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<Key>(document: document, object: object, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: PendingArray
        if case .array(let existing) = storage {
            array = existing
        } else {
            array = PendingArray()
            storage = .array(array)
        }
        return JSONUnkeyedEncodingContainer(document: document, array: array, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { JSONSingleValueEncodingContainer(encoder: self) }
}

extension JSONText {
    /// A floating-point number as `JSONEncoder` writes it; non-finite values cannot be JSON and
    /// are refused, as `JSONEncoder` refuses them.
    mutating func appendFloatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: T,
        path: @autoclosure () -> CodingPathNode
    ) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: path().codingPath, debugDescription: "\(value) is not a JSON number."))
        }
        // Whole numbers as integers (`2`, not `2.0`), as JSONEncoder writes them.
        if value == value.rounded(), abs(value) < 1e15 { appendInteger(Int64(value)) } else { appendRaw(value.description) }
    }
}

struct JSONSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: JSONValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ body: (inout JSONText) throws -> Void) rethrows { encoder.storage = .text(try encoder.document.write(body)) }

    func encodeNil() { set { $0.appendRaw("null") } }
    func encode(_ value: Bool) { set { $0.appendRaw(value ? "true" : "false") } }
    func encode(_ value: String) { set { $0.appendQuoted(value) } }
    func encode(_ value: Double) throws { try set { try $0.appendFloatingPoint(value, path: encoder.path) } }
    func encode(_ value: Float) throws { try set { try $0.appendFloatingPoint(value, path: encoder.path) } }
    func encode(_ value: Int) { set { $0.appendInteger(value) } }
    func encode(_ value: Int8) { set { $0.appendInteger(value) } }
    func encode(_ value: Int16) { set { $0.appendInteger(value) } }
    func encode(_ value: Int32) { set { $0.appendInteger(value) } }
    func encode(_ value: Int64) { set { $0.appendInteger(value) } }
    func encode(_ value: UInt) { set { $0.appendInteger(value) } }
    func encode(_ value: UInt8) { set { $0.appendInteger(value) } }
    func encode(_ value: UInt16) { set { $0.appendInteger(value) } }
    func encode(_ value: UInt32) { set { $0.appendInteger(value) } }
    func encode(_ value: UInt64) { set { $0.appendInteger(value) } }
    func encode<T: Encodable>(_ value: T) throws { encoder.storage = .text(try encoder.document.box(value, path: encoder.path)) }
}

struct JSONKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let document: JSONDocument
    let object: PendingObject
    let path: CodingPathNode
    var codingPath: [any CodingKey] { path.codingPath }

    /// Writes the member's name, then its value with `body`.
    private func put(_ key: Key, _ body: (inout JSONText) throws -> Void) rethrows {
        let name = document.writeName(snakeCasing: key.stringValue)
        object.members.append(.init(name: name, value: .text(try document.write(body))))
    }

    private func put(_ value: PendingValue, name: MemberName) { object.members.append(.init(name: name, value: value)) }

    func encodeNil(forKey key: Key) { put(key) { $0.appendRaw("null") } }
    func encode(_ value: Bool, forKey key: Key) { put(key) { $0.appendRaw(value ? "true" : "false") } }
    func encode(_ value: String, forKey key: Key) { put(key) { $0.appendQuoted(value) } }
    func encode(_ value: Double, forKey key: Key) throws { try put(key) { try $0.appendFloatingPoint(value, path: path.appending(key: key)) } }
    func encode(_ value: Float, forKey key: Key) throws { try put(key) { try $0.appendFloatingPoint(value, path: path.appending(key: key)) } }
    func encode(_ value: Int, forKey key: Key) { put(key) { $0.appendInteger(value) } }
    func encode(_ value: Int8, forKey key: Key) { put(key) { $0.appendInteger(value) } }
    func encode(_ value: Int16, forKey key: Key) { put(key) { $0.appendInteger(value) } }
    func encode(_ value: Int32, forKey key: Key) { put(key) { $0.appendInteger(value) } }
    func encode(_ value: Int64, forKey key: Key) { put(key) { $0.appendInteger(value) } }
    func encode(_ value: UInt, forKey key: Key) { put(key) { $0.appendInteger(value) } }
    func encode(_ value: UInt8, forKey key: Key) { put(key) { $0.appendInteger(value) } }
    func encode(_ value: UInt16, forKey key: Key) { put(key) { $0.appendInteger(value) } }
    func encode(_ value: UInt32, forKey key: Key) { put(key) { $0.appendInteger(value) } }
    func encode(_ value: UInt64, forKey key: Key) { put(key) { $0.appendInteger(value) } }

    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let name = document.writeName(snakeCasing: key.stringValue)
        let text = try document.box(value, path: path.appending(key: key))
        put(.text(text), name: name)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = PendingObject()
        put(.object(nested), name: document.writeName(snakeCasing: key.stringValue))
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<NestedKey>(document: document, object: nested, path: path.appending(key: key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = PendingArray()
        put(.array(nested), name: document.writeName(snakeCasing: key.stringValue))
        return JSONUnkeyedEncodingContainer(document: document, array: nested, path: path.appending(key: key))
    }

    func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    func superEncoder(forKey key: Key) -> any Encoder {
        // The sub-encoder's value lands under `key` once written.
        let encoder = JSONValueEncoder(document: document, path: path.appending(key: key))
        put(.encoder(encoder), name: document.writeName(snakeCasing: key.stringValue))
        return encoder
    }
}

struct JSONUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let document: JSONDocument
    let array: PendingArray
    let path: CodingPathNode
    var codingPath: [any CodingKey] { path.codingPath }
    var count: Int { array.elements.count }

    private var nextPath: CodingPathNode { path.appending(index: count) }

    private func add(_ body: (inout JSONText) throws -> Void) rethrows { array.elements.append(.text(try document.write(body))) }

    func encodeNil() { add { $0.appendRaw("null") } }
    func encode(_ value: Bool) { add { $0.appendRaw(value ? "true" : "false") } }
    func encode(_ value: String) { add { $0.appendQuoted(value) } }
    func encode(_ value: Double) throws { try add { try $0.appendFloatingPoint(value, path: nextPath) } }
    func encode(_ value: Float) throws { try add { try $0.appendFloatingPoint(value, path: nextPath) } }
    func encode(_ value: Int) { add { $0.appendInteger(value) } }
    func encode(_ value: Int8) { add { $0.appendInteger(value) } }
    func encode(_ value: Int16) { add { $0.appendInteger(value) } }
    func encode(_ value: Int32) { add { $0.appendInteger(value) } }
    func encode(_ value: Int64) { add { $0.appendInteger(value) } }
    func encode(_ value: UInt) { add { $0.appendInteger(value) } }
    func encode(_ value: UInt8) { add { $0.appendInteger(value) } }
    func encode(_ value: UInt16) { add { $0.appendInteger(value) } }
    func encode(_ value: UInt32) { add { $0.appendInteger(value) } }
    func encode(_ value: UInt64) { add { $0.appendInteger(value) } }
    func encode<T: Encodable>(_ value: T) throws { array.elements.append(.text(try document.box(value, path: nextPath))) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = PendingObject()
        let path = nextPath
        array.elements.append(.object(nested))
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<NestedKey>(document: document, object: nested, path: path))
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = PendingArray()
        let path = nextPath
        array.elements.append(.array(nested))
        return JSONUnkeyedEncodingContainer(document: document, array: nested, path: path)
    }

    func superEncoder() -> any Encoder {
        let encoder = JSONValueEncoder(document: document, path: nextPath)
        array.elements.append(.encoder(encoder))
        return encoder
    }
}
