/// Division and modular arithmetic: DIV, MOD, SDIV, SMOD, ADDMOD, MULMOD. Division by zero gives
/// zero, as the EVM defines it. The general case is Knuth's algorithm D (TAOCP vol. 2, 4.3.1) on
/// 64-bit limbs, with buffers on the stack.
extension U256 {
    /// Quotient and remainder; both zero for a zero divisor.
    @inlinable
    public func quotientAndRemainder(dividingBy divisor: U256) -> (quotient: U256, remainder: U256) {
        if divisor.isZero { return (.zero, .zero) }
        if self < divisor { return (.zero, self) }
        if (w1 | w2 | w3) == 0 {  // both fit in 64 bits
            let (q, r) = w0.quotientAndRemainder(dividingBy: divisor.w0)
            return (U256(q), U256(r))
        }
        var quotient = U256.zero
        var remainder = U256.zero
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4) { numerator in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4) { d in
                withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4) { q in
                    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4) { r in
                        for i in 0..<4 {
                            numerator[i] = self[limb: i]
                            d[i] = divisor[limb: i]
                        }
                        U256.divideLimbs(numerator.baseAddress!, 4, d.baseAddress!, 4, q.baseAddress!, r.baseAddress!)
                        for i in 0..<4 {
                            quotient[limb: i] = q[i]
                            remainder[limb: i] = r[i]
                        }
                    }
                }
            }
        }
        return (quotient, remainder)
    }

    @inlinable
    public static func / (lhs: U256, rhs: U256) -> U256 { lhs.quotientAndRemainder(dividingBy: rhs).quotient }

    @inlinable
    public static func % (lhs: U256, rhs: U256) -> U256 { lhs.quotientAndRemainder(dividingBy: rhs).remainder }

    /// SDIV: the quotient of the words read as signed, truncated toward zero.
    @inlinable
    public func signedDivided(by divisor: U256) -> U256 {
        if divisor.isZero { return .zero }
        let q = magnitude / divisor.magnitude
        return isNegative != divisor.isNegative ? q.negated : q
    }

    /// SMOD: the remainder with the sign of the dividend.
    @inlinable
    public func signedRemainder(dividingBy divisor: U256) -> U256 {
        if divisor.isZero { return .zero }
        let r = magnitude % divisor.magnitude
        return isNegative ? r.negated : r
    }

    /// ADDMOD: `(self + other) mod modulus` without wrapping at 2^256.
    @inlinable
    public func addMod(_ other: U256, _ modulus: U256) -> U256 {
        if modulus.isZero { return .zero }
        let (sum, carry) = addingReportingOverflow(other)
        if !carry { return sum % modulus }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 5) { n in
            for i in 0..<4 { n[i] = sum[limb: i] }
            n[4] = 1
            return U256.remainder(n.baseAddress!, 5, modulus)
        }
    }

    /// MULMOD: `(self * other) mod modulus` over the full 512-bit product.
    @inlinable
    public func mulMod(_ other: U256, _ modulus: U256) -> U256 {
        if modulus.isZero { return .zero }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 8) { product in
            let p = product.baseAddress!
            for i in 0..<8 { p[i] = 0 }
            for i in 0..<4 {
                var carry: UInt64 = 0
                let a = self[limb: i]
                for j in 0..<4 { U256.multiplyAccumulate(&p[i + j], a, other[limb: j], &carry) }
                p[i + 4] = carry
            }
            return U256.remainder(p, 8, modulus)
        }
    }

    /// The remainder of an n-limb number by a word.
    @inlinable
    static func remainder(_ numerator: UnsafeMutablePointer<UInt64>, _ count: Int, _ modulus: U256) -> U256 {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4) { d in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 8) { q in
                withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4) { r in
                    for i in 0..<4 { d[i] = modulus[limb: i] }
                    divideLimbs(numerator, count, d.baseAddress!, 4, q.baseAddress!, r.baseAddress!)
                    return U256(w0: r[0], w1: r[1], w2: r[2], w3: r[3])
                }
            }
        }
    }

    /// Knuth D: `u` (uCount limbs) divided by `v` (vCount limbs, not zero). Writes uCount limbs of
    /// quotient to `q` and vCount limbs of remainder to `r` (both zero-filled above the result).
    @usableFromInline
    static func divideLimbs(
        _ u: UnsafeMutablePointer<UInt64>,
        _ uCount: Int,
        _ v: UnsafePointer<UInt64>,
        _ vCount: Int,
        _ q: UnsafeMutablePointer<UInt64>,
        _ r: UnsafeMutablePointer<UInt64>
    ) {
        var n = vCount
        while n > 0 && v[n - 1] == 0 { n -= 1 }
        precondition(n > 0, "division by zero reached divideLimbs")
        var m = uCount
        while m > 0 && u[m - 1] == 0 { m -= 1 }
        for i in 0..<uCount { q[i] = 0 }
        for i in 0..<vCount { r[i] = 0 }
        if m < n {  // numerator smaller than divisor
            for i in 0..<m { r[i] = u[i] }
            return
        }
        if n == 1 {
            let divisor = v[0]
            var rem: UInt64 = 0
            var j = m - 1
            while j >= 0 {
                (q[j], rem) = divisor.dividingFullWidth((rem, u[j]))
                j -= 1
            }
            r[0] = rem
            return
        }
        let shift = v[n - 1].leadingZeroBitCount
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4) { vnBuffer in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 9) { unBuffer in
                let vn = vnBuffer.baseAddress!
                let un = unBuffer.baseAddress!
                // Normalise so the divisor's top bit is set; the estimate qhat is then off by at most 2.
                if shift == 0 {
                    for i in 0..<n { vn[i] = v[i] }
                    for i in 0..<m { un[i] = u[i] }
                    un[m] = 0
                } else {
                    for i in stride(from: n - 1, to: 0, by: -1) { vn[i] = v[i] << shift | v[i - 1] >> (64 - shift) }
                    vn[0] = v[0] << shift
                    un[m] = u[m - 1] >> (64 - shift)
                    for i in stride(from: m - 1, to: 0, by: -1) { un[i] = u[i] << shift | u[i - 1] >> (64 - shift) }
                    un[0] = u[0] << shift
                }
                let top = vn[n - 1]
                let second = vn[n - 2]
                var j = m - n
                while j >= 0 {
                    var qhat: UInt64
                    var rhat: UInt64
                    var rhatOverflow = false
                    if un[j + n] >= top {
                        qhat = .max
                        (rhat, rhatOverflow) = un[j + n - 1].addingReportingOverflow(top)
                    } else {
                        (qhat, rhat) = top.dividingFullWidth((un[j + n], un[j + n - 1]))
                    }
                    while !rhatOverflow {
                        let (ph, pl) = qhat.multipliedFullWidth(by: second)
                        if ph > rhat || (ph == rhat && pl > un[j + n - 2]) {
                            qhat -= 1
                            (rhat, rhatOverflow) = rhat.addingReportingOverflow(top)
                        } else {
                            break
                        }
                    }
                    // Multiply and subtract qhat * vn from un[j...j+n].
                    var carry: UInt64 = 0
                    var borrow: UInt64 = 0
                    for i in 0..<n {
                        let (ph, pl) = qhat.multipliedFullWidth(by: vn[i])
                        let (pl2, c1) = pl.addingReportingOverflow(carry)
                        carry = ph &+ (c1 ? 1 : 0)
                        let (t1, b1) = un[i + j].subtractingReportingOverflow(pl2)
                        let (t2, b2) = t1.subtractingReportingOverflow(borrow)
                        un[i + j] = t2
                        borrow = (b1 ? 1 : 0) &+ (b2 ? 1 : 0)
                    }
                    let (t1, b1) = un[j + n].subtractingReportingOverflow(carry)
                    let (t2, b2) = t1.subtractingReportingOverflow(borrow)
                    un[j + n] = t2
                    if b1 || b2 {  // qhat was one too large: add the divisor back
                        qhat -= 1
                        var c: UInt64 = 0
                        for i in 0..<n {
                            let (s1, c1) = un[i + j].addingReportingOverflow(vn[i])
                            let (s2, c2) = s1.addingReportingOverflow(c)
                            un[i + j] = s2
                            c = (c1 ? 1 : 0) &+ (c2 ? 1 : 0)
                        }
                        un[j + n] = un[j + n] &+ c
                    }
                    q[j] = qhat
                    j -= 1
                }
                if shift == 0 {
                    for i in 0..<n { r[i] = un[i] }
                } else {
                    for i in 0..<(n - 1) { r[i] = un[i] >> shift | un[i + 1] << (64 - shift) }
                    r[n - 1] = un[n - 1] >> shift
                }
            }
        }
    }
}
