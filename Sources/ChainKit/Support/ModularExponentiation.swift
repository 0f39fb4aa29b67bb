/// Modular exponentiation of big-endian unsigned integers of any length, as the EVM's precompile
/// 0x05 (EIP-198) defines it. Schoolbook multiplication and Knuth's division (TAOCP 4.3.1, algorithm
/// D) over 64-bit limbs: the precompile's gas already bounds the work.
public enum ModularExponentiation {
    /// `base ** exponent mod modulus`, written in exactly `modulus.count` bytes (zero when the
    /// modulus is zero).
    public static func power(base: [UInt8], exponent: [UInt8], modulus: [UInt8]) -> [UInt8] {
        let m = limbs(modulus)
        if m.isEmpty { return [UInt8](repeating: 0, count: modulus.count) }
        var result: [UInt64] = remainder([1], m)
        let b = remainder(limbs(base), m)
        // Left to right over the exponent's bits.
        for byte in exponent {
            for bit in (0..<8).reversed() {
                result = remainder(multiply(result, result), m)
                if (byte >> UInt8(bit)) & 1 == 1 { result = remainder(multiply(result, b), m) }
            }
        }
        return bytes(result, count: modulus.count)
    }

    /// Little-endian limbs without leading (high) zeros.
    static func limbs(_ bytes: [UInt8]) -> [UInt64] {
        var out = [UInt64](repeating: 0, count: (bytes.count + 7) / 8)
        for (i, byte) in bytes.reversed().enumerated() { out[i / 8] |= UInt64(byte) << UInt64(8 * (i % 8)) }
        while out.last == 0 { out.removeLast() }
        return out
    }

    static func bytes(_ limbs: [UInt64], count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            let limb = i / 8
            if limb < limbs.count { out[count - 1 - i] = UInt8(truncatingIfNeeded: limbs[limb] >> UInt64(8 * (i % 8))) }
        }
        return out
    }

    static func multiply(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        if a.isEmpty || b.isEmpty { return [] }
        var out = [UInt64](repeating: 0, count: a.count + b.count)
        for i in 0..<a.count {
            var carry: UInt64 = 0
            for j in 0..<b.count {
                let (high, low) = a[i].multipliedFullWidth(by: b[j])
                let (s1, c1) = low.addingReportingOverflow(out[i + j])
                let (s2, c2) = s1.addingReportingOverflow(carry)
                out[i + j] = s2
                carry = high &+ (c1 ? 1 : 0) &+ (c2 ? 1 : 0)
            }
            out[i + b.count] = carry
        }
        while out.last == 0 { out.removeLast() }
        return out
    }

    /// `u mod v` for a non-zero `v` (both trimmed little-endian limbs).
    static func remainder(_ u: [UInt64], _ v: [UInt64]) -> [UInt64] {
        var u = u
        while u.last == 0 { u.removeLast() }
        let n = v.count
        if u.count < n { return u }
        if n == 1 {
            var rem: UInt64 = 0
            for limb in u.reversed() { rem = v[0].dividingFullWidth((rem, limb)).remainder }
            return rem == 0 ? [] : [rem]
        }
        let shift = UInt64(v[n - 1].leadingZeroBitCount)
        let vn = shiftLeft(v, shift, extraLimb: false)
        var un = shiftLeft(u, shift, extraLimb: true)
        let m = u.count - n
        let top = vn[n - 1], second = vn[n - 2]
        for j in stride(from: m, through: 0, by: -1) {
            var qhat: UInt64, rhat: UInt64, rhatOverflow = false
            if un[j + n] >= top {
                qhat = .max
                (rhat, rhatOverflow) = un[j + n - 1].addingReportingOverflow(top)
            } else {
                (qhat, rhat) = top.dividingFullWidth((un[j + n], un[j + n - 1]))
            }
            while !rhatOverflow {
                let (ph, pl) = qhat.multipliedFullWidth(by: second)
                guard ph > rhat || (ph == rhat && pl > un[j + n - 2]) else { break }
                qhat -= 1
                (rhat, rhatOverflow) = rhat.addingReportingOverflow(top)
            }
            var carry: UInt64 = 0, borrow: UInt64 = 0
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
            if b1 || b2 {  // one too many: add the divisor back
                var c: UInt64 = 0
                for i in 0..<n {
                    let (s1, c1) = un[i + j].addingReportingOverflow(vn[i])
                    let (s2, c2) = s1.addingReportingOverflow(c)
                    un[i + j] = s2
                    c = (c1 ? 1 : 0) &+ (c2 ? 1 : 0)
                }
                un[j + n] = un[j + n] &+ c
            }
        }
        var r = [UInt64](repeating: 0, count: n)
        for i in 0..<n {
            r[i] = shift == 0 ? un[i] : un[i] >> shift | un[i + 1] << (64 - shift)
        }
        while r.last == 0 { r.removeLast() }
        return r
    }

    private static func shiftLeft(_ x: [UInt64], _ shift: UInt64, extraLimb: Bool) -> [UInt64] {
        var out = [UInt64](repeating: 0, count: x.count + 1)
        for i in 0..<x.count {
            out[i] |= x[i] << shift
            if shift > 0 { out[i + 1] |= x[i] >> (64 - shift) }
        }
        if !extraLimb { out.removeLast() }
        return out
    }
}
