/// The validity window of a Substrate transaction (sp-runtime `generic::Era`).
///
/// An immortal transaction is valid forever (and replayable after its account is reaped); a mortal one is
/// valid for `period` blocks from the block it names, which a node checks by looking up that block's hash.
/// Values are valid by construction: build a mortal era with ``mortal(period:currentBlock:)``, which rounds
/// and quantises exactly as Substrate does, or with ``init(period:phase:)``, which checks.
public struct Era: SCALECodable, Hashable, Sendable, CustomStringConvertible {
    /// The shortest and longest periods SCALE can express.
    public static let periods: ClosedRange<UInt64> = 4...65536

    /// The period in blocks (a power of two in 4...65536), or nil for an immortal era.
    public let period: UInt64?
    /// The block number modulo the period at which the era began, quantised; 0 when immortal.
    public let phase: UInt64

    /// Valid in every block. Encodes as `00`.
    public static let immortal = Era(uncheckedPeriod: nil, phase: 0)

    private init(uncheckedPeriod period: UInt64?, phase: UInt64) {
        self.period = period
        self.phase = phase
    }

    /// A mortal era with an exact period and phase, as read from a transaction.
    /// - Throws: `out_of_range` unless `period` is a power of two in 4...65536, `phase < period`, and the
    ///   phase is a multiple of the quantisation step (`period / 4096`, at least 1).
    public init(period: UInt64, phase: UInt64) throws {
        guard Self.periods.contains(period), period.nonzeroBitCount == 1 else {
            throw ChainKitError(.outOfRange, "era period \(period) is not a power of two in 4...65536")
        }
        guard phase < period, phase % Self.quantum(period) == 0 else {
            throw ChainKitError(
                .outOfRange,
                "era phase \(phase) is not below \(period) and a multiple of \(Self.quantum(period))"
            )
        }
        self.init(uncheckedPeriod: period, phase: phase)
    }

    /// The mortal era Substrate's `Era::mortal(period, current)` makes for a transaction built at `currentBlock`.
    ///
    /// The period is rounded up to a power of two and clamped to 4...65536; the phase is `currentBlock % period`
    /// rounded down to the quantisation step, since the encoding keeps at most 12 bits of it.
    public static func mortal(period requested: UInt64, currentBlock: UInt64) -> Era {
        let period: UInt64
        if requested > periods.upperBound {
            period = periods.upperBound
        } else {
            // Next power of two ≥ requested, at least 4 (requested ≤ 65536 here, so no overflow).
            period = max(periods.lowerBound, requested <= 1 ? 1 : 1 << (64 - (requested - 1).leadingZeroBitCount))
        }
        let quantum = quantum(period)
        let phase = currentBlock % period / quantum * quantum
        return Era(uncheckedPeriod: period, phase: phase)
    }

    /// Whether the era never expires.
    public var isImmortal: Bool { period == nil }

    /// The first block in which a transaction with this era is valid, given any block in its window: the
    /// block whose hash the signature commits to. 0 for an immortal era (the genesis hash).
    public func birth(currentBlock: UInt64) -> UInt64 {
        guard let period else { return 0 }
        return (max(currentBlock, phase) - phase) / period * period + phase
    }

    /// The first block in which the transaction is no longer valid (`UInt64.max` for an immortal era).
    public func death(currentBlock: UInt64) -> UInt64 {
        guard let period else { return .max }
        let (death, overflow) = birth(currentBlock: currentBlock).addingReportingOverflow(period)
        return overflow ? .max : death
    }

    public var description: String {
        guard let period else { return "immortal" }
        return "mortal(period: \(period), phase: \(phase))"
    }

    /// The phase resolution: long periods keep only the top 12 bits of the phase.
    private static func quantum(_ period: UInt64) -> UInt64 { max(period >> 12, 1) }

    /// Immortal is `00`. Mortal is a little-endian u16: the low 4 bits are log2(period) - 1, the upper 12 bits
    /// are `phase / quantum`. Its low byte is never 0, which is how a reader tells the two apart.
    public func encode(to encoder: inout SCALEEncoder) {
        guard let period else {
            encoder.encodeInteger(UInt8(0))
            return
        }
        let exponent = UInt16(period.trailingZeroBitCount - 1)
        encoder.encodeInteger(exponent | UInt16(truncatingIfNeeded: phase / Self.quantum(period)) << 4)
    }

    /// - Throws: `invalid_scale` for a mortal encoding whose period is below 4 or whose phase is not below it.
    public init(from decoder: inout SCALEDecoder) throws {
        let at = decoder.offset
        let first = try decoder.decodeByte()
        guard first != 0 else {
            self = .immortal
            return
        }
        let encoded = UInt16(first) | UInt16(try decoder.decodeByte()) << 8
        let period = UInt64(2) << (encoded & 0b1111)
        let phase = UInt64(encoded >> 4) * Self.quantum(period)
        guard period >= Self.periods.lowerBound, phase < period else {
            throw ChainKitError(.invalidSCALE, "era at offset \(at) has period \(period) and phase \(phase)")
        }
        self.init(uncheckedPeriod: period, phase: phase)
    }
}
