import Foundation

/// Writes the JSON of JSON-RPC answers.
///
/// `JSONSerialization` spent more time writing a batch's answers than the hub spent storing the
/// batch (measured: 13% of the hub's CPU under a batched load, most of it dynamic casts of every
/// value). An answer is an envelope of strings around a result that is, for most calls, a string
/// too (a hash, a `0x` quantity): those are written directly, as are objects and arrays of them.
/// Numbers and booleans, whose Foundation boxes are easy to confuse (`NSNumber(1) is Bool`), go
/// through `JSONSerialization` one by one, except the plain integers request ids are.
enum RPCJSON {
    static func data(_ value: Any) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        try write(value, into: &out)
        return out
    }

    static func write(_ value: Any, into out: inout [UInt8]) throws {
        // The exact Swift types the methods build, compared first: on Linux a failed `as?` of an
        // array or dictionary to `String` bridges it to Foundation to ask, which cost more than
        // writing it.
        let type = Swift.type(of: value)
        if type == String.self {
            quote(value as! String, into: &out)
        } else if type == [String: Any].self {
            try write(object: value as! [String: Any], into: &out)
        } else if type == [Any].self {
            try write(list: value as! [Any], into: &out)
        } else if type == NSNull.self {
            out += "null".utf8
        } else if let integer = plainInteger(value) {
            out += integer.utf8
        } else if let text = value as? String {
            quote(text, into: &out)
        } else if let object = value as? [String: Any] {
            try write(object: object, into: &out)
        } else if let list = value as? [Any] {
            try write(list: list, into: &out)
        } else {
            out += try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes])
        }
    }

    private static func write(object: [String: Any], into out: inout [UInt8]) throws {
        out.append(UInt8(ascii: "{"))
        for (index, (key, member)) in object.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            quote(key, into: &out)
            out.append(UInt8(ascii: ":"))
            try write(member, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    private static func write(list: [Any], into out: inout [UInt8]) throws {
        out.append(UInt8(ascii: "["))
        for (index, element) in list.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            try write(element, into: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// The digits of a Swift `Int` or of a parsed JSON integer (exactly `NSNumber`, not the
    /// boolean subclass, holding an integer type), else `nil`. Exact types only, so that nothing
    /// is bridged to ask.
    private static func plainInteger(_ value: Any) -> String? {
        let type = Swift.type(of: value)
        if type == Int.self { return String(value as! Int) }
        guard type == NSNumber.self else { return nil }
        let number = value as! NSNumber
        switch String(cString: number.objCType) {
        case "c", "C", "B", "f", "d": return nil
        default: return number.stringValue
        }
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\u00XX`, the rest as UTF-8
    /// (slashes unescaped, as the endpoint always wrote them).
    static func quote(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += #"\""#.utf8
            case UInt8(ascii: "\\"): out += #"\\"#.utf8
            case 0x0A: out += #"\n"#.utf8
            case 0x0D: out += #"\r"#.utf8
            case 0x09: out += #"\t"#.utf8
            case 0..<0x20:
                let digits = Array("0123456789abcdef".utf8)
                out += #"\u00"#.utf8
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
