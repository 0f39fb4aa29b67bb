/// The subset of STROBE-128 (v1.0.2) that Merlin transcripts use, on Keccak-f[1600].
/// Follows the STROBE specification's framing: operations absorb their flags and the previous
/// operation's start, and `continuing` extends the current operation.
struct Strobe128 {
    struct Flags: OptionSet {
        let rawValue: UInt8
        static let inbound = Flags(rawValue: 1)
        static let application = Flags(rawValue: 2)
        static let cipher = Flags(rawValue: 4)
        static let transport = Flags(rawValue: 8)
        static let meta = Flags(rawValue: 16)
        static let keyed = Flags(rawValue: 32)
    }

    /// Bytes per block: 200 − 2·128/8 − 2.
    static let rate = 166
    private var state = KeccakState()
    private var position = 0
    private var positionBegin = 0
    private var currentFlags: Flags = []

    init(protocolLabel: [UInt8]) {
        let initial: [UInt8] = [1, UInt8(Self.rate + 2), 1, 0, 1, 96] + Array("STROBEv1.0.2".utf8)
        for (index, byte) in initial.enumerated() { state.set(byte: byte, at: index) }
        state.permute()
        metaAD(protocolLabel, continuing: false)
    }

    private mutating func runF() {
        state.xor(byte: UInt8(positionBegin), at: position)
        state.xor(byte: 0x04, at: position + 1)
        state.xor(byte: 0x80, at: Self.rate + 1)
        state.permute()
        position = 0
        positionBegin = 0
    }

    private mutating func absorb(_ data: [UInt8]) {
        for byte in data {
            state.xor(byte: byte, at: position)
            position += 1
            if position == Self.rate { runF() }
        }
    }

    private mutating func overwrite(_ data: [UInt8]) {
        for byte in data {
            state.set(byte: byte, at: position)
            position += 1
            if position == Self.rate { runF() }
        }
    }

    private mutating func squeeze(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            out.append(state.byte(at: position))
            state.set(byte: 0, at: position)
            position += 1
            if position == Self.rate { runF() }
        }
        return out
    }

    private mutating func beginOperation(_ flags: Flags, continuing: Bool) {
        if continuing {
            precondition(currentFlags == flags, "a continued STROBE operation must keep its flags")
            return
        }
        let previousBegin = positionBegin
        positionBegin = position + 1
        currentFlags = flags
        absorb([UInt8(previousBegin), flags.rawValue])
        if !flags.isDisjoint(with: [.cipher, .keyed]) && position != 0 { runF() }
    }

    mutating func metaAD(_ data: [UInt8], continuing: Bool) {
        beginOperation([.meta, .application], continuing: continuing)
        absorb(data)
    }

    mutating func ad(_ data: [UInt8], continuing: Bool) {
        beginOperation([.application], continuing: continuing)
        absorb(data)
    }

    mutating func prf(_ count: Int) -> [UInt8] {
        beginOperation([.inbound, .application, .cipher], continuing: false)
        return squeeze(count)
    }

    mutating func key(_ data: [UInt8]) {
        beginOperation([.application, .cipher], continuing: false)
        overwrite(data)
    }
}

/// A Merlin transcript: labelled messages in, labelled challenges out (what schnorrkel signs over).
public struct MerlinTranscript: Sendable {
    private var strobe: Strobe128

    public init(label: String) {
        strobe = Strobe128(protocolLabel: Array("Merlin v1.0".utf8))
        append(label: "dom-sep", Array(label.utf8))
    }

    public mutating func append(label: String, _ message: [UInt8]) {
        strobe.metaAD(Array(label.utf8), continuing: false)
        strobe.metaAD(Self.littleEndian32(message.count), continuing: true)
        strobe.ad(message, continuing: false)
    }

    public mutating func challenge(label: String, count: Int) -> [UInt8] {
        strobe.metaAD(Array(label.utf8), continuing: false)
        strobe.metaAD(Self.littleEndian32(count), continuing: true)
        return strobe.prf(count)
    }

    /// schnorrkel's witness bytes: a fork of the transcript keyed with secret nonce seeds and 32
    /// bytes of randomness, so signing nonces never repeat even with a weak random source.
    func witnessBytes(label: String, nonceSeeds: [[UInt8]], count: Int, randomness: [UInt8]) -> [UInt8] {
        var fork = strobe
        for seed in nonceSeeds {
            fork.metaAD(Array(label.utf8), continuing: false)
            fork.metaAD(Self.littleEndian32(seed.count), continuing: true)
            fork.key(seed)
        }
        fork.metaAD(Array("rng".utf8), continuing: false)
        fork.key(randomness)
        fork.metaAD(Self.littleEndian32(count), continuing: false)
        return fork.prf(count)
    }

    static func littleEndian32(_ value: Int) -> [UInt8] {
        let v = UInt32(value)
        return [
            UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 24),
        ]
    }
}

extension Strobe128: Sendable {}
extension Strobe128.Flags: Sendable {}
