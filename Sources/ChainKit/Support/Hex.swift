/// Hexadecimal text for bytes, as Ethereum and Substrate tools print them.
public enum Hex {
    /// Lowercase hex with a `0x` prefix (`0x` alone for no bytes).
    public static func encode(_ bytes: some Sequence<UInt8>, prefix: Bool = true) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = prefix ? [UInt8(ascii: "0"), UInt8(ascii: "x")] : []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hex with or without `0x`, in either case.
    /// - Parameter length: the exact number of bytes expected, if any.
    /// - Throws: `invalid_hex` naming the offending character or the wrong length.
    public static func decode(_ text: String, length: Int? = nil) throws -> [UInt8] {
        var utf8 = Substring(text).utf8[...]
        if utf8.starts(with: "0x".utf8) || utf8.starts(with: "0X".utf8) { utf8 = utf8.dropFirst(2) }
        guard utf8.count % 2 == 0 else {
            throw ChainKitError(.invalidHex, "hex has an odd number of digits (\(utf8.count))")
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var high: UInt8?
        for (offset, character) in utf8.enumerated() {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            default:
                throw ChainKitError(.invalidHex, "'\(Character(Unicode.Scalar(character)))' at digit \(offset) is not hexadecimal")
            }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        if let length, out.count != length {
            throw ChainKitError(.invalidHex, "expected \(length) bytes, got \(out.count)")
        }
        return out
    }
}
