/// An element of GF(2^255 − 19), the field under Curve25519 and ristretto255, in five 51-bit limbs.
///
/// libsodium keeps its field arithmetic private, so sr25519 verification (which needs a
/// variable-time double-base multiplication libsodium does not offer) brings its own. Limbs are
/// "loosely reduced": a value below 2^51 + 2^13 per limb after `*` and `-`, below 2^53 after one
/// unreduced `+`. Products of two such limbs, times 19 and summed five times, stay below 2^116, so
/// `UInt128` accumulators never overflow.
///
/// **Not constant time.** Comparisons, `isNegative` and the square-root ratio branch on the value.
/// Use it only on public data (signature verification), never on secret keys or nonces.
struct Curve25519FieldElement: Equatable {
    var l0: UInt64
    var l1: UInt64
    var l2: UInt64
    var l3: UInt64
    var l4: UInt64

    static let mask: UInt64 = (1 << 51) - 1

    static let zero = Curve25519FieldElement(l0: 0, l1: 0, l2: 0, l3: 0, l4: 0)
    static let one = Curve25519FieldElement(l0: 1, l1: 0, l2: 0, l3: 0, l4: 0)

    /// The Edwards curve constant d = −121665/121666.
    static let d = Curve25519FieldElement(bigEndianHex: "52036cee2b6ffe738cc740797779e89800700a4d4141d8ab75eb4dca135978a3")
    /// 2·d, which the cached point forms carry so that an addition saves one multiplication.
    static let twoD = d + d
    /// √−1, the non-negative one (RFC 9496 §4.1, SQRT_M1).
    static let sqrtMinusOne = Curve25519FieldElement(bigEndianHex: "2b8324804fc1df0b2b4d00993dfbd7a72f431806ad2fe478c4ee1b274a0ea0b0")
    /// 1/√(a − d) with a = −1 (RFC 9496 §4.1, INVSQRT_A_MINUS_D).
    static let inverseSqrtAMinusD = Curve25519FieldElement(
        bigEndianHex: "786c8905cfaffca216c27b91fe01d8409d2f16175a4172be99c8fdaa805d40ea"
    )

    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64, l4: UInt64) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
    }

    /// The element a 32-byte little-endian string names, ignoring bit 255 (callers that need a
    /// canonical encoding compare `bytes` with the input afterwards).
    init(bytes: some Collection<UInt8>) {
        precondition(bytes.count == 32, "a field element is 32 bytes")
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for (index, byte) in bytes.enumerated() {
            let shifted = UInt64(byte) << (8 * UInt64(index % 8))
            switch index / 8 {
            case 0: words.0 |= shifted
            case 1: words.1 |= shifted
            case 2: words.2 |= shifted
            default: words.3 |= shifted
            }
        }
        let mask = Self.mask
        self.init(
            l0: words.0 & mask,
            l1: (words.0 >> 51 | words.1 << 13) & mask,
            l2: (words.1 >> 38 | words.2 << 26) & mask,
            l3: (words.2 >> 25 | words.3 << 39) & mask,
            l4: (words.3 >> 12) & mask
        )
    }

    /// A constant written as a big-endian hex number, as RFC 9496 prints them.
    private init(bigEndianHex: String) {
        let digits = Array(bigEndianHex.utf8)
        precondition(digits.count == 64, "a field constant is 64 hex digits")
        let bytes = (0..<32).reversed().map { index -> UInt8 in
            let pair = String(decoding: digits[2 * index..<2 * index + 2], as: UTF8.self)
            return UInt8(pair, radix: 16)!
        }
        self.init(bytes: bytes)
    }

    /// The canonical 32-byte little-endian encoding (fully reduced below p).
    var bytes: [UInt8] {
        let limbs = canonicalLimbs()
        let words = [
            limbs.l0 | limbs.l1 << 51,
            limbs.l1 >> 13 | limbs.l2 << 38,
            limbs.l2 >> 26 | limbs.l3 << 25,
            limbs.l3 >> 39 | limbs.l4 << 12,
        ]
        var out = [UInt8](repeating: 0, count: 32)
        for index in 0..<32 { out[index] = UInt8(truncatingIfNeeded: words[index / 8] >> (8 * UInt64(index % 8))) }
        return out
    }

    /// The same value with every limb below 2^51 and the whole below p.
    func canonicalLimbs() -> Curve25519FieldElement {
        let mask = Self.mask
        var r = weaklyReduced()
        // r < 2^255 + small now; it is ≥ p exactly when r + 19 carries out of bit 255.
        var q = (r.l0 + 19) >> 51
        q = (r.l1 + q) >> 51
        q = (r.l2 + q) >> 51
        q = (r.l3 + q) >> 51
        q = (r.l4 + q) >> 51
        r.l0 += 19 * q
        r.l1 += r.l0 >> 51
        r.l0 &= mask
        r.l2 += r.l1 >> 51
        r.l1 &= mask
        r.l3 += r.l2 >> 51
        r.l2 &= mask
        r.l4 += r.l3 >> 51
        r.l3 &= mask
        r.l4 &= mask  // drops q·2^255, which with the 19q above subtracts q·p
        return r
    }

    /// Carries each limb's excess into the next (the top one back into the bottom, times 19).
    @inline(__always)
    func weaklyReduced() -> Curve25519FieldElement {
        let mask = Self.mask
        return Curve25519FieldElement(
            l0: (l0 & mask) &+ (l4 >> 51) &* 19,
            l1: (l1 & mask) &+ (l0 >> 51),
            l2: (l2 & mask) &+ (l1 >> 51),
            l3: (l3 & mask) &+ (l2 >> 51),
            l4: (l4 & mask) &+ (l3 >> 51)
        )
    }

    /// Whether the canonical encoding is odd: RFC 9496's IS_NEGATIVE.
    var isNegative: Bool { canonicalLimbs().l0 & 1 == 1 }

    var isZero: Bool { canonicalLimbs() == .zero }

    /// Equality of the values (not of the loosely reduced limbs).
    static func == (a: Curve25519FieldElement, b: Curve25519FieldElement) -> Bool {
        let x = a.canonicalLimbs()
        let y = b.canonicalLimbs()
        return x.l0 == y.l0 && x.l1 == y.l1 && x.l2 == y.l2 && x.l3 == y.l3 && x.l4 == y.l4
    }

    // MARK: arithmetic

    /// Sum without carrying: inputs below 2^52 give limbs below 2^53, which `*` accepts.
    @inline(__always)
    static func + (a: Curve25519FieldElement, b: Curve25519FieldElement) -> Curve25519FieldElement {
        Curve25519FieldElement(l0: a.l0 &+ b.l0, l1: a.l1 &+ b.l1, l2: a.l2 &+ b.l2, l3: a.l3 &+ b.l3, l4: a.l4 &+ b.l4)
    }

    /// Difference: adds 16·p first so no limb underflows (b's limbs must stay below 2^55), then carries.
    @inline(__always)
    static func - (a: Curve25519FieldElement, b: Curve25519FieldElement) -> Curve25519FieldElement {
        Curve25519FieldElement(
            l0: (a.l0 &+ 0x7F_FFFF_FFFF_FED0) &- b.l0,
            l1: (a.l1 &+ 0x7F_FFFF_FFFF_FFF0) &- b.l1,
            l2: (a.l2 &+ 0x7F_FFFF_FFFF_FFF0) &- b.l2,
            l3: (a.l3 &+ 0x7F_FFFF_FFFF_FFF0) &- b.l3,
            l4: (a.l4 &+ 0x7F_FFFF_FFFF_FFF0) &- b.l4
        ).weaklyReduced()
    }

    @inline(__always)
    static prefix func - (a: Curve25519FieldElement) -> Curve25519FieldElement { zero - a }

    @inline(__always)
    private static func wide(_ a: UInt64, _ b: UInt64) -> UInt128 { UInt128(a) &* UInt128(b) }

    /// Carries five 128-bit column sums into loosely reduced limbs.
    @inline(__always)
    private static func carried(
        _ c0: UInt128,
        _ c1: UInt128,
        _ c2: UInt128,
        _ c3: UInt128,
        _ c4: UInt128
    ) -> Curve25519FieldElement {
        let mask = Self.mask
        var c1 = c1
        var c2 = c2
        var c3 = c3
        var c4 = c4
        c1 &+= c0 >> 51
        var r0 = UInt64(truncatingIfNeeded: c0) & mask
        c2 &+= c1 >> 51
        var r1 = UInt64(truncatingIfNeeded: c1) & mask
        c3 &+= c2 >> 51
        let r2 = UInt64(truncatingIfNeeded: c2) & mask
        c4 &+= c3 >> 51
        let r3 = UInt64(truncatingIfNeeded: c3) & mask
        let r4 = UInt64(truncatingIfNeeded: c4) & mask
        r0 &+= UInt64(truncatingIfNeeded: c4 >> 51) &* 19  // 2^255 ≡ 19
        r1 &+= r0 >> 51
        r0 &= mask
        return Curve25519FieldElement(l0: r0, l1: r1, l2: r2, l3: r3, l4: r4)
    }

    /// Product: schoolbook over the limbs, folding the columns above 2^255 back in times 19.
    @inline(__always)
    static func * (a: Curve25519FieldElement, b: Curve25519FieldElement) -> Curve25519FieldElement {
        let b1 = b.l1 &* 19
        let b2 = b.l2 &* 19
        let b3 = b.l3 &* 19
        let b4 = b.l4 &* 19
        let c0 = wide(a.l0, b.l0) &+ wide(a.l4, b1) &+ wide(a.l3, b2) &+ wide(a.l2, b3) &+ wide(a.l1, b4)
        let c1 = wide(a.l1, b.l0) &+ wide(a.l0, b.l1) &+ wide(a.l4, b2) &+ wide(a.l3, b3) &+ wide(a.l2, b4)
        let c2 = wide(a.l2, b.l0) &+ wide(a.l1, b.l1) &+ wide(a.l0, b.l2) &+ wide(a.l4, b3) &+ wide(a.l3, b4)
        let c3 = wide(a.l3, b.l0) &+ wide(a.l2, b.l1) &+ wide(a.l1, b.l2) &+ wide(a.l0, b.l3) &+ wide(a.l4, b4)
        let c4 = wide(a.l4, b.l0) &+ wide(a.l3, b.l1) &+ wide(a.l2, b.l2) &+ wide(a.l1, b.l3) &+ wide(a.l0, b.l4)
        return carried(c0, c1, c2, c3, c4)
    }

    /// The square, with the symmetric products computed once (15 multiplications instead of 25).
    @inline(__always)
    func squared() -> Curve25519FieldElement {
        let a0Twice = l0 &* 2
        let a1Twice = l1 &* 2
        let a2Twice = l2 &* 2
        let a3Twice = l3 &* 2
        let a3Times19 = l3 &* 19
        let a4Times19 = l4 &* 19
        let c0 = Self.wide(l0, l0) &+ Self.wide(a1Twice, a4Times19) &+ Self.wide(a2Twice, a3Times19)
        let c1 = Self.wide(a0Twice, l1) &+ Self.wide(a2Twice, a4Times19) &+ Self.wide(l3, a3Times19)
        let c2 = Self.wide(a0Twice, l2) &+ Self.wide(l1, l1) &+ Self.wide(a3Twice, a4Times19)
        let c3 = Self.wide(a0Twice, l3) &+ Self.wide(a1Twice, l2) &+ Self.wide(l4, a4Times19)
        let c4 = Self.wide(a0Twice, l4) &+ Self.wide(a1Twice, l3) &+ Self.wide(l2, l2)
        return Self.carried(c0, c1, c2, c3, c4)
    }

    /// Squares `count` times in a row.
    func squared(times count: Int) -> Curve25519FieldElement {
        var result = self
        for _ in 0..<count { result = result.squared() }
        return result
    }

    /// (self^(2^250 − 1), self^11): the common prefix of the inversion and square-root exponent chains.
    private func powTwo250MinusOne() -> (Curve25519FieldElement, Curve25519FieldElement) {
        let x2 = squared()
        let x9 = self * x2.squared(times: 2)
        let x11 = x2 * x9
        let x5_0 = x9 * x11.squared()  // 2^5 − 1
        let x10_0 = x5_0.squared(times: 5) * x5_0
        let x20_0 = x10_0.squared(times: 10) * x10_0
        let x40_0 = x20_0.squared(times: 20) * x20_0
        let x50_0 = x40_0.squared(times: 10) * x10_0
        let x100_0 = x50_0.squared(times: 50) * x50_0
        let x200_0 = x100_0.squared(times: 100) * x100_0
        let x250_0 = x200_0.squared(times: 50) * x50_0
        return (x250_0, x11)
    }

    /// The inverse, self^(p − 2) = self^(2^255 − 21); zero maps to zero.
    func inverted() -> Curve25519FieldElement {
        let (x250, x11) = powTwo250MinusOne()
        return x250.squared(times: 5) * x11
    }

    /// self^((p − 5)/8) = self^(2^252 − 3), the exponent in RFC 9496's SQRT_RATIO_M1.
    private func powPMinus5Over8() -> Curve25519FieldElement {
        let (x250, _) = powTwo250MinusOne()
        return x250.squared(times: 2) * self
    }

    /// RFC 9496 §4.2 SQRT_RATIO_M1: whether u/v is a square, and the non-negative √(u/v) if it is
    /// (√(i·u/v) if it is not). Variable time.
    static func sqrtRatio(_ u: Curve25519FieldElement, _ v: Curve25519FieldElement) -> (wasSquare: Bool, root: Curve25519FieldElement) {
        let v3 = v.squared() * v
        let v7 = v3.squared() * v
        var r = (u * v3) * (u * v7).powPMinus5Over8()
        let check = v * r.squared()
        let correctSign = check == u
        let flippedSign = check == -u
        let flippedSignI = check == -(u * sqrtMinusOne)
        if flippedSign || flippedSignI { r = r * sqrtMinusOne }
        if r.isNegative { r = -r }
        return (correctSign || flippedSign, r)
    }
}
