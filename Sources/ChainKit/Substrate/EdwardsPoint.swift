/// A point of the twisted Edwards curve −x² + y² = 1 + d·x²·y² over GF(2^255 − 19), the curve
/// behind ristretto255, in extended coordinates (X : Y : Z : T) with x = X/Z, y = Y/Z, x·y = T/Z.
///
/// The nested forms are the usual ones for a fast scalar multiplication: doubling works on
/// ``Projective`` (no T needed), every addition and doubling yields a ``Completed`` point that is
/// converted only as far as the next step needs, and addends are stored ``Cached`` (or
/// ``AffineCached`` for a precomputed table) so each addition costs four multiplications.
///
/// **Variable time**, like ``Curve25519FieldElement``: for public points and scalars only.
package struct EdwardsPoint {
    typealias Field = Curve25519FieldElement

    var x: Field
    var y: Field
    var z: Field
    var t: Field

    package static let identity = EdwardsPoint(x: .zero, y: .one, z: .one, t: .zero)

    /// (X : Y : Z) with x = X/Z, y = Y/Z.
    struct Projective {
        var x: Field
        var y: Field
        var z: Field

        static let identity = Projective(x: .zero, y: .one, z: .one)

        /// 2·self, for a = −1: four squarings, no multiplication.
        @inline(__always)
        func doubled() -> Completed {
            let xx = x.squared()
            let yy = y.squared()
            let zz = z.squared()
            let zz2 = zz + zz
            let sum = (x + y).squared()
            let ySum = yy + xx
            let yDifference = yy - xx
            return Completed(x: sum - ySum, y: ySum, z: yDifference, t: zz2 - yDifference)
        }
    }

    /// ((X : Z), (Y : T)) with x = X/Z and y = Y/T: what additions and doublings produce.
    struct Completed {
        var x: Field
        var y: Field
        var z: Field
        var t: Field

        @inline(__always)
        func projective() -> Projective { Projective(x: x * t, y: y * z, z: z * t) }
        @inline(__always)
        func extended() -> EdwardsPoint { EdwardsPoint(x: x * t, y: y * z, z: z * t, t: x * y) }
    }

    /// (Y + X, Y − X, Z, 2d·T): an addend whose per-addition constants are already formed.
    struct Cached {
        var yPlusX: Field
        var yMinusX: Field
        var z: Field
        var t2d: Field
    }

    /// (y + x, y − x, 2d·x·y) with Z = 1: a table entry, one multiplication cheaper to add.
    struct AffineCached {
        var yPlusX: Field
        var yMinusX: Field
        var t2d: Field
    }

    var projective: Projective { Projective(x: x, y: y, z: z) }

    var cached: Cached { Cached(yPlusX: y + x, yMinusX: y - x, z: z, t2d: t * Field.twoD) }

    /// The same point with Z = 1 (one inversion): for tables built once.
    var affineCached: AffineCached {
        let zInverse = z.inverted()
        let affineX = x * zInverse
        let affineY = y * zInverse
        return AffineCached(yPlusX: affineY + affineX, yMinusX: affineY - affineX, t2d: affineX * affineY * Field.twoD)
    }

    func doubled() -> Completed { projective.doubled() }

    /// self + q (the unified formula for a = −1 in extended coordinates).
    @inline(__always)
    static func + (p: EdwardsPoint, q: Cached) -> Completed {
        let a = (p.y + p.x) * q.yPlusX
        let b = (p.y - p.x) * q.yMinusX
        let c = p.t * q.t2d
        let zz = p.z * q.z
        let d = zz + zz
        return Completed(x: a - b, y: a + b, z: d + c, t: d - c)
    }

    /// self − q: the addition with q's x (so Y ± X swap roles and T changes sign).
    @inline(__always)
    static func - (p: EdwardsPoint, q: Cached) -> Completed {
        let a = (p.y + p.x) * q.yMinusX
        let b = (p.y - p.x) * q.yPlusX
        let c = p.t * q.t2d
        let zz = p.z * q.z
        let d = zz + zz
        return Completed(x: a - b, y: a + b, z: d - c, t: d + c)
    }

    @inline(__always)
    static func + (p: EdwardsPoint, q: AffineCached) -> Completed {
        let a = (p.y + p.x) * q.yPlusX
        let b = (p.y - p.x) * q.yMinusX
        let c = p.t * q.t2d
        let d = p.z + p.z
        return Completed(x: a - b, y: a + b, z: d + c, t: d - c)
    }

    @inline(__always)
    static func - (p: EdwardsPoint, q: AffineCached) -> Completed {
        let a = (p.y + p.x) * q.yMinusX
        let b = (p.y - p.x) * q.yPlusX
        let c = p.t * q.t2d
        let d = p.z + p.z
        return Completed(x: a - b, y: a + b, z: d - c, t: d + c)
    }
}
