/// 0x06 and 0x07 (EIP-196, priced by EIP-1108): point addition and scalar multiplication on the
/// bn254 (alt_bn128) curve y² = x³ + 3 over F_p, with the field arithmetic done in ``U256``.
/// 0x08's pairing is supported only for an empty input (the empty product is 1); any pair needs the
/// F_p¹² tower this engine does not have, and fails as an unsupported precompile.
enum BN254 {
    static let p = try! U256(hex: "0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47")
    static let pMinus2 = p &- U256(2)

    /// Jacobian coordinates (x = X/Z², y = Y/Z³); Z = 0 is the point at infinity.
    struct Point {
        var x: U256
        var y: U256
        var z: U256

        static let infinity = Point(x: .one, y: .one, z: .zero)
        var isInfinity: Bool { z.isZero }
    }

    @inline(__always) static func add(_ a: U256, _ b: U256) -> U256 { a.addMod(b, p) }
    @inline(__always) static func sub(_ a: U256, _ b: U256) -> U256 { a >= b ? a &- b : a &+ (p &- b) }
    @inline(__always) static func mul(_ a: U256, _ b: U256) -> U256 { a.mulMod(b, p) }

    static func inverse(_ a: U256) -> U256 {
        var result = U256.one
        var base = a
        var e = pMinus2
        while !e.isZero {
            if e.w0 & 1 == 1 { result = mul(result, base) }
            base = mul(base, base)
            e = e >> 1
        }
        return result
    }

    /// Reads an affine point (64 bytes); `nil` when a coordinate is not below p or the point is off
    /// the curve. (0, 0) is the point at infinity.
    static func readPoint(_ bytes: ArraySlice<UInt8>) -> Point? {
        let x = U256(bigEndian: bytes.prefix(32)), y = U256(bigEndian: bytes.dropFirst(32).prefix(32))
        guard x < p, y < p else { return nil }
        if x.isZero && y.isZero { return .infinity }
        guard mul(y, y) == add(mul(mul(x, x), x), U256(3)) else { return nil }
        return Point(x: x, y: y, z: .one)
    }

    static func write(_ point: Point) -> [UInt8] {
        if point.isInfinity { return [UInt8](repeating: 0, count: 64) }
        let zInverse = inverse(point.z)
        let z2 = mul(zInverse, zInverse)
        return mul(point.x, z2).bigEndianBytes + mul(point.y, mul(z2, zInverse)).bigEndianBytes
    }

    static func double(_ a: Point) -> Point {
        if a.isInfinity || a.y.isZero { return .infinity }
        let xx = mul(a.x, a.x), yy = mul(a.y, a.y), yyyy = mul(yy, yy)
        let t = sub(sub(mul(add(a.x, yy), add(a.x, yy)), xx), yyyy)
        let d = add(t, t)
        let e = add(add(xx, xx), xx)
        let x3 = sub(mul(e, e), add(d, d))
        let eightYYYY = add(add(add(yyyy, yyyy), add(yyyy, yyyy)), add(add(yyyy, yyyy), add(yyyy, yyyy)))
        let y3 = sub(mul(e, sub(d, x3)), eightYYYY)
        let yz = mul(a.y, a.z)
        return Point(x: x3, y: y3, z: add(yz, yz))
    }

    static func add(_ a: Point, _ b: Point) -> Point {
        if a.isInfinity { return b }
        if b.isInfinity { return a }
        let z1z1 = mul(a.z, a.z), z2z2 = mul(b.z, b.z)
        let u1 = mul(a.x, z2z2), u2 = mul(b.x, z1z1)
        let s1 = mul(mul(a.y, b.z), z2z2), s2 = mul(mul(b.y, a.z), z1z1)
        if u1 == u2 { return s1 == s2 ? double(a) : .infinity }
        let h = sub(u2, u1)
        let i = mul(add(h, h), add(h, h))
        let j = mul(h, i)
        let r = add(sub(s2, s1), sub(s2, s1))
        let v = mul(u1, i)
        let x3 = sub(sub(mul(r, r), j), add(v, v))
        let s1j = mul(s1, j)
        let y3 = sub(mul(r, sub(v, x3)), add(s1j, s1j))
        let zs = add(a.z, b.z)
        let z3 = mul(sub(sub(mul(zs, zs), z1z1), z2z2), h)
        return Point(x: x3, y: y3, z: z3)
    }

    static func multiply(_ point: Point, by scalar: U256) -> Point {
        var result = Point.infinity
        var bit = scalar.bitWidth - 1
        while bit >= 0 {
            result = double(result)
            if !((scalar >> bit) & .one).isZero { result = add(result, point) }
            bit -= 1
        }
        return result
    }

    /// 0x06: the sum of two points; `nil` for an invalid point.
    static func runAdd(_ input: [UInt8]) -> [UInt8]? {
        let data = paddedSlice(input, 0, 128)
        guard let a = readPoint(data[0..<64]), let b = readPoint(data[64..<128]) else { return nil }
        return write(add(a, b))
    }

    /// 0x07: a point times a scalar; `nil` for an invalid point.
    static func runMul(_ input: [UInt8]) -> [UInt8]? {
        let data = paddedSlice(input, 0, 96)
        guard let a = readPoint(data[0..<64]) else { return nil }
        return write(multiply(a, by: U256(bigEndian: data[64..<96])))
    }
}
