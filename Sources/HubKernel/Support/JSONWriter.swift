/// Builds compact JSON text by hand. The ledger writes an event per transfer inside its write
/// transaction, thousands per batch, so this avoids `JSONEncoder`'s reflection and builds into
/// one byte buffer (string appends cost more than the bytes they add).
struct JSONWriter {
    private var output: JSONText
    /// One entry per open object: whether the next member needs a comma before it.
    private var needsComma = [false]
    /// A key was just written, so the next value follows its colon directly.
    private var afterKey = false

    init(capacity: Int = 256) { output = JSONText(capacity: capacity) }

    var text: String { String(decoding: output.bytes, as: UTF8.self) }

    mutating func beginObject() {
        separate()
        output.appendByte(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    mutating func endObject() {
        output.appendByte(UInt8(ascii: "}"))
        needsComma.removeLast()
    }

    mutating func key(_ name: String) {
        separate()
        output.appendQuoted(name)
        output.appendByte(UInt8(ascii: ":"))
        afterKey = true
    }

    private mutating func separate() {
        if afterKey {
            afterKey = false
        } else if needsComma[needsComma.count - 1] {
            output.appendByte(UInt8(ascii: ","))
        } else {
            needsComma[needsComma.count - 1] = true
        }
    }

    mutating func string(_ value: String) {
        separate()
        output.appendQuoted(value)
    }

    mutating func raw(_ literal: String) {
        separate()
        output.appendRaw(literal)
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
        appendStringMap(map)
    }

    mutating func appendStringMap(_ map: [String: String]) {
        beginObject()
        for k in map.keys.sorted() { field(k, map[k]!) }
        endObject()
    }

    /// A `[String: String]` as a JSON object with sorted keys (so equal maps give equal text).
    static func encode(_ map: [String: String]) -> String {
        if map.isEmpty { return "{}" }
        var writer = JSONWriter(capacity: 64)
        writer.appendStringMap(map)
        return writer.text
    }
}
