/// Compact JSON text in one byte buffer: the writing half shared by ``HubJSONEncoder`` and the
/// ledger's hand-built event payloads (`JSONWriter`), so both escape strings the same way.
struct JSONText {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func append(_ value: EncodedValue) {
        switch value {
        case .null: appendRaw("null")
        case .bool(let flag): appendRaw(flag ? "true" : "false")
        case .number(let text): appendRaw(text)
        case .string(let text): appendQuoted(text)
        case .array(let array):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in array.elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                append(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            // Sorted by key; a key written twice keeps its last value (the sort is stable).
            let members = object.members.enumerated().sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }.map(\.element)
            var first = true
            for (index, member) in members.enumerated() {
                if index + 1 < members.count, members[index + 1].name == member.name { continue }
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                appendQuoted(member.name)
                bytes.append(UInt8(ascii: ":"))
                append(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    mutating func appendRaw(_ literal: String) { bytes.append(contentsOf: literal.utf8) }

    mutating func appendByte(_ byte: UInt8) { bytes.append(byte) }

    /// `value` as a JSON string: quotes, backslashes and control characters escaped, everything
    /// else (slashes, non-ASCII) as is.
    mutating func appendQuoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
