import Foundation
import HubKernel

/// A JSON value a Substrate node sent or is sent, Sendable (JSONSerialization's `Any` is not).
/// Numbers keep their text, so a `u64` is read exactly.
enum NodeJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([NodeJSON])
    case object([String: NodeJSON])

    /// A JSON document's text, or nil when it is not JSON.
    init?(parsing text: String) {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else { return nil }
        self.init(foundation: parsed)
    }

    private init(foundation value: Any) {
        switch value {
        case let string as String: self = .string(string)
        case let number as NSNumber:
            // JSONSerialization gives booleans as NSNumber too; only a CFBoolean's type id is "c".
            if String(cString: number.objCType) == "c" {
                self = .bool(number.boolValue)
            } else {
                self = .number(number.stringValue)
            }
        case let array as [Any]: self = .array(array.map(NodeJSON.init(foundation:)))
        case let object as [String: Any]: self = .object(object.mapValues(NodeJSON.init(foundation:)))
        default: self = .null
        }
    }

    /// The value as JSON text.
    var text: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number(let text): text
        case .string(let string): Self.quoted(string)
        case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.sorted { $0.key < $1.key }.map { Self.quoted($0.key) + ":" + $0.value.text }.joined(separator: ",") + "}"
        }
    }

    subscript(key: String) -> NodeJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var string: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    var isNull: Bool { self == .null }

    /// A JSON number, or a `0x` hex quantity as block numbers are sent in headers.
    var unsigned: UInt64? {
        switch self {
        case .number(let text): UInt64(text)
        case .string(let text) where text.hasPrefix("0x"): UInt64(text.dropFirst(2), radix: 16)
        default: nil
        }
    }

    /// `0x`-prefixed hex as bytes.
    var bytes: [UInt8]? {
        guard let text = string, text.hasPrefix("0x") else { return nil }
        return HexText.decode(String(text.dropFirst(2)))
    }

    static func hex(_ bytes: [UInt8]) -> NodeJSON { .string("0x" + HexText.encode(bytes)) }

    private static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
