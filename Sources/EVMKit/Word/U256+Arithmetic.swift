/// Wrapping (mod 2^256) arithmetic, as the EVM's ADD, SUB, MUL and EXP define it.
extension U256 {
    /// `acc + x * y + carry`, the low limb into `acc`, the high into `carry` (cannot overflow 128 bits).
    @inlinable @inline(__always)
    static func multiplyAccumulate(_ acc: inout UInt64, _ x: UInt64, _ y: UInt64, _ carry: inout UInt64) {
        let (high, low) = x.multipliedFullWidth(by: y)
        let (sum1, c1) = low.addingReportingOverflow(acc)
        let (sum2, c2) = sum1.addingReportingOverflow(carry)
        acc = sum2
        carry = high &+ (c1 ? 1 : 0) &+ (c2 ? 1 : 0)
    }

    @inlinable @inline(__always)
    public func addingReportingOverflow(_ other: U256) -> (partialValue: U256, overflow: Bool) {
        let (r0, c0) = w0.addingReportingOverflow(other.w0)
        var (r1, c1) = w1.addingReportingOverflow(other.w1)
        var carry = c1
        if c0 { (r1, c1) = r1.addingReportingOverflow(1); carry = carry || c1 }
        var (r2, c2) = w2.addingReportingOverflow(other.w2)
        var carry2 = c2
        if carry { (r2, c2) = r2.addingReportingOverflow(1); carry2 = carry2 || c2 }
        var (r3, c3) = w3.addingReportingOverflow(other.w3)
        var carry3 = c3
        if carry2 { (r3, c3) = r3.addingReportingOverflow(1); carry3 = carry3 || c3 }
        return (U256(w0: r0, w1: r1, w2: r2, w3: r3), carry3)
    }

    @inlinable @inline(__always)
    public func subtractingReportingOverflow(_ other: U256) -> (partialValue: U256, overflow: Bool) {
        let (r0, b0) = w0.subtractingReportingOverflow(other.w0)
        var (r1, b1) = w1.subtractingReportingOverflow(other.w1)
        var borrow = b1
        if b0 { (r1, b1) = r1.subtractingReportingOverflow(1); borrow = borrow || b1 }
        var (r2, b2) = w2.subtractingReportingOverflow(other.w2)
        var borrow2 = b2
        if borrow { (r2, b2) = r2.subtractingReportingOverflow(1); borrow2 = borrow2 || b2 }
        var (r3, b3) = w3.subtractingReportingOverflow(other.w3)
        var borrow3 = b3
        if borrow2 { (r3, b3) = r3.subtractingReportingOverflow(1); borrow3 = borrow3 || b3 }
        return (U256(w0: r0, w1: r1, w2: r2, w3: r3), borrow3)
    }

    @inlinable @inline(__always)
    public static func &+ (lhs: U256, rhs: U256) -> U256 { lhs.addingReportingOverflow(rhs).partialValue }

    @inlinable @inline(__always)
    public static func &- (lhs: U256, rhs: U256) -> U256 { lhs.subtractingReportingOverflow(rhs).partialValue }

    /// The low 256 bits of the product.
    @inlinable
    public static func &* (lhs: U256, rhs: U256) -> U256 {
        let a0 = lhs.w0, a1 = lhs.w1, a2 = lhs.w2, a3 = lhs.w3
        let b0 = rhs.w0, b1 = rhs.w1, b2 = rhs.w2, b3 = rhs.w3
        var r0: UInt64 = 0, r1: UInt64 = 0, r2: UInt64 = 0, r3: UInt64 = 0
        var carry: UInt64 = 0
        multiplyAccumulate(&r0, a0, b0, &carry)
        multiplyAccumulate(&r1, a0, b1, &carry)
        multiplyAccumulate(&r2, a0, b2, &carry)
        r3 = a0 &* b3 &+ carry
        carry = 0
        multiplyAccumulate(&r1, a1, b0, &carry)
        multiplyAccumulate(&r2, a1, b1, &carry)
        r3 = r3 &+ a1 &* b2 &+ carry
        carry = 0
        multiplyAccumulate(&r2, a2, b0, &carry)
        r3 = r3 &+ a2 &* b1 &+ carry
        r3 = r3 &+ a3 &* b0
        return U256(w0: r0, w1: r1, w2: r2, w3: r3)
    }

    /// Two's complement negation.
    @inlinable @inline(__always)
    public var negated: U256 { U256.zero &- self }

    /// The absolute value of the word read as signed (2^255 stays 2^255, as the EVM wants for SDIV).
    @inlinable @inline(__always)
    var magnitude: U256 { isNegative ? negated : self }

    /// `self ** exponent mod 2^256` by square-and-multiply.
    @inlinable
    public func power(_ exponent: U256) -> U256 {
        if exponent.isZero { return .one }
        var base = self
        var result = U256.one
        var bits = exponent.bitWidth
        var e = exponent
        while bits > 0 {
            if e.w0 & 1 == 1 { result = result &* base }
            bits -= 1
            if bits > 0 { base = base &* base }
            e = e >> 1
        }
        return result
    }
}

extension U256 {
    /// The product with a flag for any bits past 2^256 (transaction-level fee arithmetic must not wrap).
    public func multipliedFullWidthReportingOverflow(_ other: U256) -> (partialValue: U256, overflow: Bool) {
        let low = self &* other
        if isZero || other.isZero { return (low, false) }
        // Overflowed iff dividing back does not give the other factor.
        return (low, low / other != self)
    }
}
