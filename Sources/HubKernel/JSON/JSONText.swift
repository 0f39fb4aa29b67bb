/// Compact JSON text in one byte buffer: the writing half shared by ``HubJSONEncoder`` and the
/// ledger's hand-built event payloads (`JSONWriter`), so both escape strings the same way.
struct JSONText {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    var count: Int { bytes.count }

    mutating func appendRaw(_ literal: String) { bytes.append(contentsOf: literal.utf8) }

    mutating func appendByte(_ byte: UInt8) { bytes.append(byte) }

    /// `value` as a JSON string: quotes, backslashes and control characters escaped, everything
    /// else (slashes, non-ASCII) as is.
    mutating func appendQuoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// An integer's decimal digits, written without making a `String` of them.
    mutating func appendInteger(_ value: some BinaryInteger) {
        if let small = Int64(exactly: value) {
            if small < 0 { bytes.append(UInt8(ascii: "-")) }
            appendDigits(small.magnitude)
        } else if let large = UInt64(exactly: value) {
            appendDigits(large)
        } else {
            appendRaw(String(value))
        }
    }

    private mutating func appendDigits(_ magnitude: UInt64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = magnitude
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Appends a copy of text written earlier (`range` of this buffer): how the encoder moves an
    /// object's members into key order once the object is complete.
    mutating func appendCopy(of range: Range<Int>) {
        // Through a scratch buffer: the array cannot be read while it is being appended to.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: range.count) { scratch in
            _ = scratch.initialize(from: bytes[range])
            bytes.append(contentsOf: UnsafeBufferPointer(scratch))
        }
    }

    /// Appends the earlier text `range` as a JSON string's content, escaped.
    mutating func appendEscapedCopy(of range: Range<Int>) {
        let raw = Array(bytes[range])
        raw.withUnsafeBufferPointer { appendEscaped($0) }
    }

    /// Appends `name` in `snake_case` (``JSONKeys/snakeCase(_:)``), unescaped.
    mutating func appendSnakeCase(_ name: String) { JSONKeys.appendSnakeCase(name, to: &bytes) }

    /// Whether the text `range` holds a byte that a JSON string must escape.
    func needsEscaping(_ range: Range<Int>) -> Bool {
        bytes.withUnsafeBufferPointer { $0[range].contains(where: Self.needsEscape) }
    }

    /// Unescaped runs go in whole; only the bytes that need it are escaped one by one.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var run = 0
        for index in utf8.indices where Self.needsEscape(utf8[index]) {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
            appendEscape(for: utf8[index])
            run = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private mutating func appendEscape(for byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(UInt8(ascii: "u"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(hex.utf8Start[Int(byte >> 4)])
            bytes.append(hex.utf8Start[Int(byte & 0xF)])
        }
    }
}
