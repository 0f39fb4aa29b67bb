/// ristretto255 (RFC 9496) decoding and encoding on ``EdwardsPoint``, and the variable-time
/// double-base scalar multiplication sr25519 verification needs.
///
/// libsodium's ristretto255 API multiplies one point at a time in constant time, so checking
/// `R = s·B − k·A` there costs two full multiplications. Here the two share one chain of doublings
/// (Straus–Shamir) and skip the zero digits of a width-w NAF, which is what makes verification
/// fast. Everything in this file branches and indexes on its inputs: it must only ever see
/// **public** values (a signature, a challenge derived from public data, a public key).
package enum Ristretto255VariableTime {
    typealias Field = Curve25519FieldElement

    /// RFC 9496 §4.3.1: the point a 32-byte encoding names, or nil if it names none (non-canonical
    /// field element, negative s, or not on the image of the encoding map).
    package static func decode(_ encoding: some Collection<UInt8>) -> EdwardsPoint? {
        guard encoding.count == 32 else { return nil }
        let s = Field(bytes: encoding)
        guard s.bytes.elementsEqual(encoding), !s.isNegative else { return nil }
        let ss = s.squared()
        let u1 = Field.one - ss
        let u2 = Field.one + ss
        let u2Squared = u2.squared()
        let v = -(Field.d * u1.squared()) - u2Squared
        let (wasSquare, inverseSqrt) = Field.sqrtRatio(.one, v * u2Squared)
        let denominatorX = inverseSqrt * u2
        let denominatorY = inverseSqrt * denominatorX * v
        var x = (s + s) * denominatorX
        if x.isNegative { x = -x }
        let y = u1 * denominatorY
        let t = x * y
        guard wasSquare, !t.isNegative, !y.isZero else { return nil }
        return EdwardsPoint(x: x, y: y, z: .one, t: t)
    }

    /// RFC 9496 §4.3.2: the canonical 32-byte encoding of the coset `point` stands for.
    package static func encode(_ point: EdwardsPoint) -> [UInt8] {
        let u1 = (point.z + point.y) * (point.z - point.y)
        let u2 = point.x * point.y
        let (_, inverseSqrt) = Field.sqrtRatio(.one, u1 * u2.squared())
        let denominator1 = inverseSqrt * u1
        let denominator2 = inverseSqrt * u2
        let zInverse = denominator1 * denominator2 * point.t
        let rotate = (point.t * zInverse).isNegative
        var x = point.x
        var y = point.y
        var denominatorInverse = denominator2
        if rotate {
            x = point.y * Field.sqrtMinusOne
            y = point.x * Field.sqrtMinusOne
            denominatorInverse = denominator1 * Field.inverseSqrtAMinusD
        }
        if (x * zInverse).isNegative { y = -y }
        var s = denominatorInverse * (point.z - y)
        if s.isNegative { s = -s }
        return s.bytes
    }

    /// The ristretto255 generator, decoded from its RFC 9496 encoding.
    package static let basePoint = decode(
        [
            0xE2, 0xF2, 0xAE, 0x0A, 0x6A, 0xBC, 0x4E, 0x71, 0xA8, 0x84, 0xA9, 0x61, 0xC5, 0x00, 0x51, 0x5F,
            0x58, 0xE3, 0x0B, 0x6A, 0xA5, 0x82, 0xDD, 0x8D, 0xB6, 0xA6, 0x59, 0x45, 0xE0, 0x8D, 0x2D, 0x76,
        ] as [UInt8]
    )!

    /// NAF width for the variable point: 8 cached odd multiples, built per call.
    static let variableWidth = 5
    /// NAF width for the base point: 64 odd multiples, built once and kept.
    static let baseWidth = 8

    /// B, 3B, 5B, …, 127B with Z = 1.
    static let baseTable: [EdwardsPoint.AffineCached] = oddMultiples(of: basePoint, count: 1 << (baseWidth - 2)).map(\.affineCached)

    /// P, 3P, 5P, …, (2·count − 1)·P.
    static func oddMultiples(of point: EdwardsPoint, count: Int) -> [EdwardsPoint] {
        let double = point.doubled().extended().cached
        var multiples = [point]
        multiples.reserveCapacity(count)
        while multiples.count < count { multiples.append((multiples[multiples.count - 1] + double).extended()) }
        return multiples
    }

    /// The width-`width` non-adjacent form of a 32-byte little-endian scalar below 2^255: 256
    /// digits, each zero or odd with |digit| < 2^(width−1), any two non-zero ones at least `width`
    /// apart, and Σ digit[i]·2^i equal to the scalar.
    static func nonAdjacentForm(_ scalar: [UInt8], width: Int) -> [Int8] {
        precondition(scalar.count == 32 && scalar[31] < 0x80 && (2...8).contains(width))
        // The scalar in 64-bit words, with a zero word above so windows may run past bit 255.
        var words = [UInt64](repeating: 0, count: 5)
        for index in 0..<32 { words[index / 8] |= UInt64(scalar[index]) << (8 * UInt64(index % 8)) }
        let windowMask: UInt64 = (1 << width) - 1
        let half: UInt64 = 1 << (width - 1)
        var digits = [Int8](repeating: 0, count: 256)
        var position = 0
        var carry: UInt64 = 0
        while position < 256 {
            let word = position / 64
            let bit = position % 64
            var bits = words[word] >> bit
            if bit + width > 64 { bits |= words[word + 1] << (64 - bit) }
            let window = carry + (bits & windowMask)
            if window & 1 == 0 {
                // Digit 0 here; a carry of 1 meeting a set bit moves on to the next position.
                position += 1
                continue
            }
            if window < half {
                digits[position] = Int8(window)
                carry = 0
            } else {
                digits[position] = Int8(Int(window) - (1 << width))
                carry = 1
            }
            position += width
        }
        return digits
    }

    /// s·B − k·A for the ristretto255 generator B, by one shared chain of doublings over the two
    /// NAFs. Both scalars are 32-byte little-endian and below 2^255 (reduced scalars are).
    ///
    /// Variable time: s, k and A must be public (in sr25519 verification they are the signature,
    /// the transcript challenge and the public key).
    package static func baseMinusPointMultiply(s: [UInt8], k: [UInt8], point: EdwardsPoint) -> EdwardsPoint {
        let sDigits = nonAdjacentForm(s, width: baseWidth)
        let kDigits = nonAdjacentForm(k, width: variableWidth)
        let pointTable = oddMultiples(of: point, count: 1 << (variableWidth - 2)).map(\.cached)
        let baseTable = self.baseTable
        guard var index = (0..<256).last(where: { sDigits[$0] != 0 || kDigits[$0] != 0 }) else { return .identity }

        var accumulator = EdwardsPoint.Projective.identity
        var step: EdwardsPoint.Completed
        while true {
            step = accumulator.doubled()
            let kDigit = kDigits[index]
            if kDigit > 0 {
                step = step.extended() - pointTable[Int(kDigit) / 2]
            } else if kDigit < 0 {
                step = step.extended() + pointTable[Int(-kDigit) / 2]
            }
            let sDigit = sDigits[index]
            if sDigit > 0 {
                step = step.extended() + baseTable[Int(sDigit) / 2]
            } else if sDigit < 0 {
                step = step.extended() - baseTable[Int(-sDigit) / 2]
            }
            if index == 0 { return step.extended() }
            accumulator = step.projective()
            index -= 1
        }
    }
}
