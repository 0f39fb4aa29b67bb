public import Foundation

/// The API's JSON encoder: `snake_case` members, keys sorted (the same value always gives the
/// same bytes, so a reply recorded with an `Idempotency-Key` equals the one first sent), no
/// escaped slashes, no floating-point money (amounts are strings by type, not by this encoder).
///
/// The hub's own rather than `JSONEncoder` for the same reason as ``HubJSONDecoder``: replies to
/// transfer batches spent a fifth of the server's CPU in `JSONEncoder` and its key conversion. It
/// writes text as it goes (``JSONDocument``) rather than building a tree first: the writer thread
/// encodes every event's data, and a tree's allocations were most of that work.
public struct HubJSONEncoder: Sendable {
    public init() {}

    public func encode(_ value: some Encodable) throws -> Data {
        Data(try encodeBytes(value))
    }

    public func encodeBytes(_ value: some Encodable) throws -> [UInt8] {
        let document = JSONDocument()
        let range = try document.box(value, path: .root)
        return range == 0..<document.text.count ? document.text.bytes : Array(document.text.bytes[range])
    }
}

/// One document on its way to text. A value is written into ``text`` where it is encoded, and an
/// object's members in the order its type encodes them; once the object is complete its members
/// are copied out again in key order, so the object's text is contiguous and sorted. The members'
/// first copies stay behind as scratch, which costs bytes, not allocations.
final class JSONDocument {
    /// Unchecked: the runtime's exclusivity check on each use of a class's stored property was a
    /// sixth of this encoder's time. One encoding uses a document, on one thread, and no access
    /// overlaps another: values are written through the methods below, which call out to no
    /// value's `encode(to:)` while they hold `text`.
    @exclusivity(unchecked) private(set) var text = JSONText(capacity: 1024)

    /// Writes `value` and returns where its complete text is. `path` is built only if the value
    /// needs an encoder of its own.
    func box<T: Encodable>(_ value: T, path: @autoclosure () -> CodingPathNode) throws -> Range<Int> {
        let start = text.count
        // The common scalars by their type, which costs a comparison; a cast (`as?`) per type
        // was a good part of the old encoder's time.
        if T.self == String.self {
            text.appendQuoted(Self.reinterpret(value, as: String.self))
        } else if T.self == Int.self {
            text.appendInteger(Self.reinterpret(value, as: Int.self))
        } else if T.self == Bool.self {
            text.appendRaw(Self.reinterpret(value, as: Bool.self) ? "true" : "false")
        } else if T.self == Int64.self {
            text.appendInteger(Self.reinterpret(value, as: Int64.self))
        } else if T.self == UInt64.self {
            text.appendInteger(Self.reinterpret(value, as: UInt64.self))
        } else if T.self == UInt32.self {
            text.appendInteger(Self.reinterpret(value, as: UInt32.self))
        } else if T.self == UInt8.self {
            text.appendInteger(Self.reinterpret(value, as: UInt8.self))
        } else if T.self == URL.self {
            // Foundation's types as `JSONEncoder` writes them by default.
            text.appendQuoted(Self.reinterpret(value, as: URL.self).absoluteString)
        } else if T.self == Data.self {
            text.appendQuoted(Self.reinterpret(value, as: Data.self).base64EncodedString())
        } else if T.self == Decimal.self {
            text.appendRaw(Self.reinterpret(value, as: Decimal.self).description)
        } else if let map = value as? any StringKeyedEncodableMap {
            let object = PendingObject()
            try map.encodeMembers(into: object, of: self, path: path())
            return complete(.object(object))
        } else {
            let encoder = JSONValueEncoder(document: self, path: path())
            try value.encode(to: encoder)
            switch encoder.storage {
            // A single value's text is already complete where it was written.
            case .text(let range)?: return range
            case let pending?: return complete(pending)
            // A value that wrote nothing is an empty object, as with `JSONEncoder` when nested.
            case nil: text.appendRaw("{}")
            }
        }
        return start..<text.count
    }

    /// Writes `value`'s complete text after everything written so far and returns where it is.
    private func complete(_ value: PendingValue) -> Range<Int> {
        let start = text.count
        write(value)
        return start..<text.count
    }

    /// `value` as `U`, which the caller has checked `T` is: a cast that costs nothing.
    private static func reinterpret<T, U>(_ value: T, as type: U.Type) -> U { unsafeBitCast(value, to: U.self) }

    /// Writes a member's name in `snake_case`, unquoted and unescaped (names are compared raw).
    func writeName(snakeCasing key: String) -> MemberName {
        let start = text.count
        text.appendSnakeCase(key)
        return MemberName(text: start..<text.count, needsEscaping: text.needsEscaping(start..<text.count))
    }

    /// Writes a free-form map's key as it is.
    func writeName(exactly key: String) -> MemberName {
        let start = text.count
        text.appendRaw(key)
        return MemberName(text: start..<text.count, needsEscaping: text.needsEscaping(start..<text.count))
    }

    /// Writes text with `body` and returns where it is.
    func write(_ body: (inout JSONText) throws -> Void) rethrows -> Range<Int> {
        let start = text.count
        try body(&text)
        return start..<text.count
    }

    /// Appends `value`'s complete text.
    func write(_ value: PendingValue) {
        switch value {
        case .text(let range): text.appendCopy(of: range)
        case .object(let object): write(object)
        case .array(let array):
            text.appendByte(UInt8(ascii: "["))
            for (index, element) in array.elements.enumerated() {
                if index > 0 { text.appendByte(UInt8(ascii: ",")) }
                write(element)
            }
            text.appendByte(UInt8(ascii: "]"))
        case .encoder(let encoder):
            if let storage = encoder.storage { write(storage) } else { text.appendRaw("{}") }
        }
    }

    /// Appends `object`'s members sorted by name; a name written twice keeps its last value.
    private func write(_ object: PendingObject) {
        let members = object.members
        text.appendByte(UInt8(ascii: "{"))
        withUnsafeTemporaryAllocation(of: Int.self, capacity: members.count) { buffer in
            var order = buffer
            for index in members.indices { order.initializeElement(at: index, to: index) }
            text.bytes.withUnsafeBufferPointer { bytes in
                // Equal names stay in writing order, so the last of them is the one kept.
                order.sort { a, b in
                    let order = Self.compare(members[a].name.text, members[b].name.text, in: bytes)
                    return order != 0 ? order < 0 : a < b
                }
            }
            var first = true
            for (position, index) in order.enumerated() {
                let name = members[index].name
                if position + 1 < order.count, sameName(name, members[order[position + 1]].name) { continue }
                if !first { text.appendByte(UInt8(ascii: ",")) }
                first = false
                text.appendByte(UInt8(ascii: "\""))
                if name.needsEscaping { text.appendEscapedCopy(of: name.text) } else { text.appendCopy(of: name.text) }
                text.appendByte(UInt8(ascii: "\""))
                text.appendByte(UInt8(ascii: ":"))
                write(members[index].value)
            }
        }
        text.appendByte(UInt8(ascii: "}"))
    }

    private func sameName(_ a: MemberName, _ b: MemberName) -> Bool {
        a.text.count == b.text.count && text.bytes[a.text].elementsEqual(text.bytes[b.text])
    }

    /// Byte order of two names' UTF-8: the order of their Unicode scalars, as `String`'s `<`.
    private static func compare(_ a: Range<Int>, _ b: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let shared = min(a.count, b.count)
        if shared > 0, let base = bytes.baseAddress {
            let order = memcmp(base + a.lowerBound, base + b.lowerBound, shared)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }
}

/// A member's name in the document: raw text, and whether writing it as a JSON string escapes.
struct MemberName {
    var text: Range<Int>
    var needsEscaping: Bool
}

/// Where a value's text is, or the container it is still being written through: a nested
/// container can be written to until the value that asked for it is complete.
enum PendingValue {
    /// Complete JSON text in the document.
    case text(Range<Int>)
    case object(PendingObject)
    case array(PendingArray)
    /// A super-encoder's value, written through it later.
    case encoder(JSONValueEncoder)
}

final class PendingObject {
    struct Member {
        var name: MemberName
        var value: PendingValue
    }

    var members: [Member] = []

    init() { members.reserveCapacity(16) }
}

final class PendingArray {
    var elements: [PendingValue] = []
}

/// Dictionaries with `String` keys are free-form maps: their keys are written as they are, never
/// converted to `snake_case` (metadata keys belong to the client).
protocol StringKeyedEncodableMap {
    func encodeMembers(into object: PendingObject, of document: JSONDocument, path: CodingPathNode) throws
}

extension Dictionary: StringKeyedEncodableMap where Key == String, Value: Encodable {
    func encodeMembers(into object: PendingObject, of document: JSONDocument, path: CodingPathNode) throws {
        for (key, value) in self {
            let name = document.writeName(exactly: key)
            let text = try document.box(value, path: path.appending(key: AnyKey(key)))
            object.members.append(.init(name: name, value: .text(text)))
        }
    }
}
