/// Builds compact JSON text by hand. The ledger writes an event per transfer inside its write
/// transaction, thousands per batch, so this avoids `JSONEncoder`'s reflection on the hot path.
struct JSONWriter {
    private(set) var text = ""
    /// One entry per open object: whether the next member needs a comma before it.
    private var needsComma = [false]
    /// A key was just written, so the next value follows its colon directly.
    private var afterKey = false

    init(capacity: Int = 256) { text.reserveCapacity(capacity) }

    mutating func beginObject() {
        separate()
        text += "{"
        needsComma.append(false)
    }

    mutating func endObject() {
        text += "}"
        needsComma.removeLast()
    }

    mutating func key(_ name: String) {
        separate()
        Self.appendQuoted(name, to: &text)
        text += ":"
        afterKey = true
    }

    private mutating func separate() {
        if afterKey {
            afterKey = false
        } else if needsComma[needsComma.count - 1] {
            text += ","
        } else {
            needsComma[needsComma.count - 1] = true
        }
    }

    mutating func string(_ value: String) {
        separate()
        Self.appendQuoted(value, to: &text)
    }

    mutating func raw(_ literal: String) {
        separate()
        text += literal
    }

    mutating func null() { raw("null") }
    mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }
    mutating func int(_ value: some BinaryInteger) { raw(String(value)) }

    mutating func field(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    mutating func field(_ name: String, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    mutating func stringMap(_ name: String, _ map: [String: String]) {
        key(name)
        Self.appendStringMap(map, to: &self)
    }

    static func appendStringMap(_ map: [String: String], to writer: inout JSONWriter) {
        writer.beginObject()
        for k in map.keys.sorted() { writer.field(k, map[k]!) }
        writer.endObject()
    }

    /// A `[String: String]` as a JSON object with sorted keys (so equal maps give equal text).
    static func encode(_ map: [String: String]) -> String {
        if map.isEmpty { return "{}" }
        var writer = JSONWriter(capacity: 64)
        appendStringMap(map, to: &writer)
        return writer.text
    }

    static func appendQuoted(_ value: String, to text: inout String) {
        text += "\""
        var plainStart = value.utf8.startIndex
        let utf8 = value.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                text += value[plainStart..<index]
                switch byte {
                case UInt8(ascii: "\""): text += "\\\""
                case UInt8(ascii: "\\"): text += "\\\\"
                case 0x0A: text += "\\n"
                case 0x0D: text += "\\r"
                case 0x09: text += "\\t"
                default:
                    let hex = Array("0123456789abcdef")
                    text += "\\u00" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
                }
                plainStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        text += value[plainStart..<utf8.endIndex]
        text += "\""
    }
}
