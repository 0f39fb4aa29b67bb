/// RFC 8259 JSON text to a ``JSONNode`` tree.
///
/// Stricter than the RFC requires where leniency would let two readers disagree about a body:
/// invalid UTF-8, lone surrogates and duplicate member names are refused, and nesting is bounded
/// (a deeply nested body must not exhaust the stack).
struct JSONParser {
    struct SyntaxError: Error, CustomStringConvertible {
        var message: String
        var offset: Int
        var description: String { "\(message) at byte \(offset)" }
    }

    static let maximumDepth = 256

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    static func parse(_ data: some Collection<UInt8>) throws(SyntaxError) -> JSONNode {
        let result: Result<JSONNode, SyntaxError>? = data.withContiguousStorageIfAvailable { buffer in
            var parser = JSONParser(buffer)
            return Result { () throws(SyntaxError) in try parser.document() }
        }
        if let result { return try result.get() }
        return try parse(Array(data))
    }

    private mutating func document() throws(SyntaxError) -> JSONNode {
        let node = try value()
        skipWhitespace()
        guard position == bytes.count else { throw error("unexpected text after the JSON value") }
        return node
    }

    private mutating func value() throws(SyntaxError) -> JSONNode {
        skipWhitespace()
        guard position < bytes.count else { throw error("unexpected end of the body") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character")
        }
    }

    private mutating func object() throws(SyntaxError) -> JSONNode {
        try enter()
        position += 1
        var names: [String] = []
        var values: [JSONNode] = []
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            position += 1
            depth -= 1
            return .object(JSONObject(names: [], values: []))
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw error("expected a member name") }
            let name = try string()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after a member name") }
            position += 1
            names.append(name)
            values.append(try value())
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of the body") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] == UInt8(ascii: "}") {
                position += 1
                break
            } else {
                throw error("expected ',' or '}' in an object")
            }
        }
        if let duplicate = Self.firstDuplicate(names) { throw error("the member \"\(duplicate)\" appears more than once") }
        depth -= 1
        return .object(JSONObject(names: names, values: values))
    }

    private mutating func array() throws(SyntaxError) -> JSONNode {
        try enter()
        position += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            position += 1
            depth -= 1
            return .array([])
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of the body") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] == UInt8(ascii: "]") {
                position += 1
                break
            } else {
                throw error("expected ',' or ']' in an array")
            }
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func string() throws(SyntaxError) -> String {
        position += 1  // the opening quote
        let start = position
        // The common case: no escapes, so the text is one slice of the input.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = try validated(UnsafeBufferPointer(rebasing: bytes[start..<position]), at: start)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("a control character inside a string must be escaped") }
            position += 1
        }
        var decoded = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return try validated(decoded, at: start)
            case UInt8(ascii: "\\"):
                position += 1
                try escape(into: &decoded)
            case 0..<0x20:
                throw error("a control character inside a string must be escaped")
            default:
                decoded.append(byte)
                position += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func escape(into decoded: inout [UInt8]) throws(SyntaxError) {
        guard position < bytes.count else { throw error("unterminated string") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800..<0xDC00).contains(scalar) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("a high surrogate must be followed by a low surrogate")
                }
                position += 2
                let low = UInt32(try hex4())
                guard (0xDC00..<0xE000).contains(low) else { throw error("a high surrogate must be followed by a low surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("a lone low surrogate")
            }
            decoded.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
        default:
            throw error("an unknown escape sequence")
        }
    }

    private mutating func hex4() throws(SyntaxError) -> UInt16 {
        guard position + 4 <= bytes.count else { throw error("a \\u escape needs four hexadecimal digits") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, returned as its text.
    private mutating func number() throws(SyntaxError) -> String {
        let start = position
        if peek(UInt8(ascii: "-")) { position += 1 }
        if peek(UInt8(ascii: "0")) {
            position += 1
        } else {
            guard digits() > 0 else { throw error("a number needs digits") }
        }
        if peek(UInt8(ascii: ".")) {
            position += 1
            guard digits() > 0 else { throw error("a number needs digits after its decimal point") }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            position += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { position += 1 }
            guard digits() > 0 else { throw error("a number needs digits in its exponent") }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    private mutating func digits() -> Int {
        let start = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
        return position - start
    }

    private mutating func literal(_ word: StaticString) throws(SyntaxError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw error("unexpected end of the body") }
        for index in 0..<count where bytes[position + index] != word.utf8Start[index] {
            throw error("unexpected character")
        }
        position += count
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels deep") }
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private func peek(_ byte: UInt8) -> Bool { position < bytes.count && bytes[position] == byte }

    private func validated(_ utf8: some Collection<UInt8>, at offset: Int) throws(SyntaxError) -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else { throw SyntaxError(message: "a string is not valid UTF-8", offset: offset) }
        return text
    }

    private func error(_ message: String) -> SyntaxError { SyntaxError(message: message, offset: position) }

    private static func firstDuplicate(_ names: [String]) -> String? {
        if names.count < 2 { return nil }
        if names.count <= 16 {
            for i in 1..<names.count where names[..<i].contains(names[i]) { return names[i] }
            return nil
        }
        var seen = Set<String>(minimumCapacity: names.count)
        for name in names where !seen.insert(name).inserted { return name }
        return nil
    }
}
