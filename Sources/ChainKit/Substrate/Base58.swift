/// Base58 in the Bitcoin alphabet, as SS58 addresses use it.
///
/// The number is big-endian base 256 in, big-endian base 58 out; every leading zero byte becomes one `1`
/// (the alphabet's zero), because a zero byte adds no value the arithmetic would keep.
public enum Base58 {
    /// The Bitcoin alphabet: digits and letters without `0`, `O`, `I` and `l`, which read alike.
    public static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)

    /// Each ASCII byte's digit value, or -1 for a byte outside the alphabet.
    private static let digitValues: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = Int8(value)
        }
        return table
    }()

    /// The Base58 text of `bytes`.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let leadingZeros = bytes.prefix { $0 == 0 }.count
        // Base-58 digits, least significant first; each input byte multiplies the number by 256 and adds itself.
        var digits: [UInt8] = []
        digits.reserveCapacity(bytes.count * 138 / 100 + 1)
        for byte in bytes.dropFirst(leadingZeros) {
            var carry = Int(byte)
            for index in digits.indices {
                carry += Int(digits[index]) << 8
                digits[index] = UInt8(carry % 58)
                carry /= 58
            }
            while carry > 0 {
                digits.append(UInt8(carry % 58))
                carry /= 58
            }
        }
        var text = [UInt8](repeating: alphabet[0], count: leadingZeros)
        text.append(contentsOf: digits.reversed().map { alphabet[Int($0)] })
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of Base58 `text`.
    /// - Throws: `invalid_address` naming the first character outside the alphabet and its position (from 1).
    ///   Base58 is only used for addresses here, hence the code.
    public static func decode(_ text: String) throws -> [UInt8] {
        // Bytes of the number, least significant first.
        var bytes: [UInt8] = []
        var leadingOnes = 0
        var sawNonZeroDigit = false
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            let value = scalar.isASCII ? digitValues[Int(scalar.value)] : -1
            guard value >= 0 else {
                throw ChainKitError(
                    .invalidAddress,
                    "'\(Character(scalar))' at position \(offset + 1) is not a base58 character"
                )
            }
            if value == 0 && !sawNonZeroDigit {
                leadingOnes += 1
                continue
            }
            sawNonZeroDigit = true
            var carry = Int(value)
            for index in bytes.indices {
                carry += Int(bytes[index]) * 58
                bytes[index] = UInt8(truncatingIfNeeded: carry)
                carry >>= 8
            }
            while carry > 0 {
                bytes.append(UInt8(truncatingIfNeeded: carry))
                carry >>= 8
            }
        }
        return [UInt8](repeating: 0, count: leadingOnes) + bytes.reversed()
    }
}
