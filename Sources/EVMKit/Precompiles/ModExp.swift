import ChainKit

/// 0x05 (EIP-198, priced by EIP-2565): base ** exponent mod modulus over lengths given in the input.
enum ModExp {
    /// The three 32-byte length words; a length past Int range prices the call out of reach.
    static func lengths(_ input: [UInt8]) -> (base: Int, exponent: Int, modulus: Int) {
        func length(_ index: Int) -> Int {
            U256(bigEndian: paddedSlice(input, 32 * index, 32)).int.map { min($0, Int(Int32.max)) } ?? Int(Int32.max)
        }
        return (length(0), length(1), length(2))
    }

    static func gasCost(_ input: [UInt8]) -> Int {
        let (baseLength, exponentLength, modulusLength) = lengths(input)
        // Multiplication complexity: words of the longer of base and modulus, squared.
        let words = (max(baseLength, modulusLength) + 7) / 8
        let complexity = words.multipliedReportingOverflow(by: words)
        if complexity.overflow { return .max }
        // Iteration count: from the exponent's bit length (only its first 32 bytes are read).
        let head = U256(bigEndian: paddedSlice(input, 96 + baseLength, min(exponentLength, 32)))
        var iterations: Int
        if exponentLength <= 32 {
            iterations = head.isZero ? 0 : head.bitWidth - 1
        } else {
            iterations = 8 * (exponentLength - 32) + max(head.bitWidth - 1, 0)
        }
        iterations = max(iterations, 1)
        let product = complexity.partialValue.multipliedReportingOverflow(by: iterations)
        if product.overflow { return .max }
        return max(200, product.partialValue / 3)
    }

    static func run(_ input: [UInt8]) -> [UInt8] {
        let (baseLength, exponentLength, modulusLength) = lengths(input)
        if modulusLength == 0 { return [] }
        let base = paddedSlice(input, 96, baseLength)
        let exponent = paddedSlice(input, 96 + baseLength, exponentLength)
        let modulus = paddedSlice(input, 96 + baseLength + exponentLength, modulusLength)
        return ModularExponentiation.power(base: base, exponent: exponent, modulus: modulus)
    }
}
