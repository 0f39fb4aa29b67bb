/// Bitwise operations, shifts and the EVM's comparison, BYTE and SIGNEXTEND semantics.
extension U256 {
    @inlinable @inline(__always)
    public static func & (lhs: U256, rhs: U256) -> U256 {
        U256(w0: lhs.w0 & rhs.w0, w1: lhs.w1 & rhs.w1, w2: lhs.w2 & rhs.w2, w3: lhs.w3 & rhs.w3)
    }

    @inlinable @inline(__always)
    public static func | (lhs: U256, rhs: U256) -> U256 {
        U256(w0: lhs.w0 | rhs.w0, w1: lhs.w1 | rhs.w1, w2: lhs.w2 | rhs.w2, w3: lhs.w3 | rhs.w3)
    }

    @inlinable @inline(__always)
    public static func ^ (lhs: U256, rhs: U256) -> U256 {
        U256(w0: lhs.w0 ^ rhs.w0, w1: lhs.w1 ^ rhs.w1, w2: lhs.w2 ^ rhs.w2, w3: lhs.w3 ^ rhs.w3)
    }

    @inlinable @inline(__always)
    public static prefix func ~ (value: U256) -> U256 {
        U256(w0: ~value.w0, w1: ~value.w1, w2: ~value.w2, w3: ~value.w3)
    }

    /// Left shift; 256 or more gives zero.
    @inlinable
    public static func << (value: U256, shift: Int) -> U256 {
        if shift >= 256 || shift < 0 { return .zero }
        if shift == 0 { return value }
        let limbs = shift >> 6
        let bits = UInt64(shift & 63)
        var out = U256.zero
        var i = 3
        while i >= limbs {
            var limb = value[limb: i - limbs] << bits
            if bits > 0 && i - limbs - 1 >= 0 { limb |= value[limb: i - limbs - 1] >> (64 - bits) }
            out[limb: i] = limb
            i -= 1
        }
        return out
    }

    /// Logical right shift; 256 or more gives zero.
    @inlinable
    public static func >> (value: U256, shift: Int) -> U256 {
        if shift >= 256 || shift < 0 { return .zero }
        if shift == 0 { return value }
        let limbs = shift >> 6
        let bits = UInt64(shift & 63)
        var out = U256.zero
        var i = 0
        while i + limbs < 4 {
            var limb = value[limb: i + limbs] >> bits
            if bits > 0 && i + limbs + 1 < 4 { limb |= value[limb: i + limbs + 1] << (64 - bits) }
            out[limb: i] = limb
            i += 1
        }
        return out
    }

    /// SHL with the shift as a word (the EVM's operand order is shift first).
    @inlinable
    public func shiftedLeft(by shift: U256) -> U256 {
        guard let s = shift.uint64, s < 256 else { return .zero }
        return self << Int(s)
    }

    /// SHR with the shift as a word.
    @inlinable
    public func shiftedRight(by shift: U256) -> U256 {
        guard let s = shift.uint64, s < 256 else { return .zero }
        return self >> Int(s)
    }

    /// SAR: arithmetic right shift, filling with the sign bit.
    @inlinable
    public func arithmeticShiftedRight(by shift: U256) -> U256 {
        let negative = isNegative
        guard let s = shift.uint64, s < 256 else { return negative ? .max : .zero }
        if !negative { return self >> Int(s) }
        return ~((~self) >> Int(s))
    }

    /// SIGNEXTEND: extends the sign of byte `byteIndex` (0 = least significant) through the word.
    @inlinable
    public func signExtended(fromByte byteIndex: U256) -> U256 {
        guard let b = byteIndex.uint64, b < 31 else { return self }
        let bit = Int(b) * 8 + 7
        let mask = (U256.one << (bit + 1)) &- .one
        let signSet = !((self >> bit) & .one).isZero
        return signSet ? self | ~mask : self & mask
    }

    /// BYTE: byte `index` counting from the most significant (0), zero past 31.
    @inlinable
    public func byte(at index: U256) -> U256 {
        guard let i = index.uint64, i < 32 else { return .zero }
        let limb = self[limb: 3 - Int(i / 8)]
        return U256((limb >> (56 - 8 * (i % 8))) & 0xFF)
    }

    /// SLT: less-than on the words read as signed.
    @inlinable @inline(__always)
    public func signedLessThan(_ other: U256) -> Bool {
        let a = isNegative, b = other.isNegative
        if a != b { return a }
        return self < other
    }

    /// Bytes needed to write the value (EXP's gas counts them).
    @inlinable public var byteWidth: Int { (bitWidth + 7) / 8 }
}
