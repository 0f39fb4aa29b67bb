import ChainKit
import Testing

/// The variable-time ristretto255 code behind sr25519 verification, against RFC 9496's test
/// vectors and against libsodium's constant-time operations on random inputs.
@Suite("ristretto255: RFC 9496 vectors and agreement with libsodium")
struct Ristretto255Tests {
    /// RFC 9496 appendix A.1: the encodings of 0·B, 1·B, …, 15·B.
    static let multiplesOfGenerator = [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76",
        "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919",
        "94741f5d5d52755ece4f23f044ee27d5d1ea1e2bd196b462166b16152a9d0259",
        "da80862773358b466ffadfe0b3293ab3d9fd53c5ea6c955358f568322daf6a57",
        "e882b131016b52c1d3337080187cf768423efccbb517bb495ab812c4160ff44e",
        "f64746d3c92b13050ed8d80236a7f0007c3b3f962f5ba793d19a601ebb1df403",
        "44f53520926ec81fbd5a387845beb7df85a96a24ece18738bdcfa6a7822a176d",
        "903293d8f2287ebe10e2374dc1a53e0bc887e592699f02d077d5263cdd55601c",
        "02622ace8f7303a31cafc63f8fc48fdc16e1c8c8d234b2f0d6685282a9076031",
        "20706fd788b2720a1ed2a5dad4952b01f413bcf0e7564de8cdc816689e2db95f",
        "bce83f8ba5dd2fa572864c24ba1810f9522bc6004afe95877ac73241cafdab42",
        "e4549ee16b9aa03099ca208c67adafcafa4c3f3e4e5303de6026e3ca8ff84460",
        "aa52e000df2e16f55fb1032fc33bc42742dad6bd5a8fc0be0167436c5948501f",
        "46376b80f409b29dc2b5f6f0c52591990896e5716f41477cd30085ab7f10301e",
        "e0c418f7c8d9c4cdd7395b93ea124f3ad99021bb681dfc3302a9d99a2e53e64e",
    ]

    /// RFC 9496 appendix A.2: encodings that name no point, by the check that refuses them.
    static let invalidEncodings: [(reason: String, encodings: [String])] = [
        (
            "non-canonical field encoding",
            [
                "00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
                "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
                "f3ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
                "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            ]
        ),
        (
            "negative field element",
            [
                "0100000000000000000000000000000000000000000000000000000000000000",
                "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
                "ed57ffd8c914fb201471d1c3d245ce3c746fcbe63a3679d51b6a516ebebe0e20",
                "c34c4e1826e5d403b78e246e88aa051c36ccf0aafebffe137d148a2bf9104562",
                "c940e5a4404157cfb1628b108db051a8d439e1a421394ec4ebccb9ec92a8ac78",
                "47cfc5497c53dc8e61c91d17fd626ffb1c49e2bca94eed052281b510b1117a24",
                "f1c6165d33367351b0da8f6e4511010c68174a03b6581212c71c0e1d026c3c72",
                "87260f7a2f12495118360f02c26a470f450dadf34a413d21042b43b9d93e1309",
            ]
        ),
        (
            "non-square x²",
            [
                "26948d35ca62e643e26a83177332e6b6afeb9d08e4268b650f1f5bbd8d81d371",
                "4eac077a713c57b4f4397629a4145982c661f48044dd3f96427d40b147d9742f",
                "de6a7b00deadc788eb6b6c8d20c0ae96c2f2019078fa604fee5b87d6e989ad7b",
                "bcab477be20861e01e4a0e295284146a510150d9817763caf1a6f4b422d67042",
                "2a292df7e32cababbd9de088d1d1abec9fc0440f637ed2fba145094dc14bea08",
                "f4a9e534fc0d216c44b218fa0c42d99635a0127ee2e53c712f70609649fdff22",
                "8268436f8c4126196cf64b3c7ddbda90746a378625f9813dd9b8457077256731",
                "2810e5cbc2cc4d4eece54f61c6f69758e289aa7ab440b3cbeaa21995c2f4232b",
            ]
        ),
        (
            "negative x·y",
            [
                "3eb858e78f5a7254d8c9731174a94f76755fd3941c0ac93735c07ba14579630e",
                "a45fdc55c76448c049a1ab33f17023edfb2be3581e9c7aade8a6125215e04220",
                "d483fe813c6ba647ebbfd3ec41adca1c6130c2beeee9d9bf065c8d151c5f396e",
                "8a2e1d30050198c65a54483123960ccc38aef6848e1ec8f5f780e8523769ba32",
                "32888462f8b486c68ad7dd9610be5192bbeaf3b443951ac1a8118419d9fa097b",
                "227142501b9d4355ccba290404bde41575b037693cef1f438c47f8fbf35d1165",
                "5c37cc491da847cfeb9281d407efc41e15144c876e0170b499a96a22ed31e01e",
                "445425117cb8c90edcbc7c1cc0e74f747f2c1efa5630a967c64f287792a48a4b",
            ]
        ),
        ("s = −1, which makes y = 0", ["ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"]),
    ]

    static let zeroScalar = [UInt8](repeating: 0, count: 32)

    static func scalar(_ value: UInt8) -> [UInt8] { [value] + [UInt8](repeating: 0, count: 31) }

    @Test("n·B and −n·B for n = 0…15 encode to RFC 9496's vectors, which decode and re-encode unchanged")
    func multiplesOfTheGenerator() throws {
        let base = Ristretto255VariableTime.basePoint
        for (n, hex) in Self.multiplesOfGenerator.enumerated() {
            let expected = try Hex.decode(hex)
            let multiple = Ristretto255VariableTime.baseMinusPointMultiply(s: Self.scalar(UInt8(n)), k: Self.zeroScalar, point: base)
            #expect(Ristretto255VariableTime.encode(multiple) == expected, "\(n)·B")
            let point = try #require(Ristretto255VariableTime.decode(expected), "\(n)·B decodes")
            #expect(Ristretto255VariableTime.encode(point) == expected, "\(n)·B round trip")
            // −n·B, from the other operand, is n·B's negation: adding n·B gives the identity.
            let negative = Ristretto255VariableTime.baseMinusPointMultiply(s: Self.zeroScalar, k: Self.scalar(UInt8(n)), point: base)
            if n > 0 {
                #expect(try Sr25519.pointAdd(Ristretto255VariableTime.encode(negative), expected) == Self.zeroScalar, "−\(n)·B")
            }
        }
    }

    @Test("every RFC 9496 invalid encoding is refused, as libsodium refuses it")
    func invalidEncodings() throws {
        let generator = try Hex.decode(Self.multiplesOfGenerator[1])
        for (reason, encodings) in Self.invalidEncodings {
            for hex in encodings {
                let bytes = try Hex.decode(hex)
                #expect(Ristretto255VariableTime.decode(bytes) == nil, "\(reason): \(hex)")
                #expect(throws: ChainKitError.self, "libsodium, \(reason): \(hex)") { try Sr25519.pointAdd(bytes, generator) }
            }
        }
        var highBitSet = generator
        highBitSet[31] |= 0x80
        #expect(Ristretto255VariableTime.decode(highBitSet) == nil)
        #expect(Ristretto255VariableTime.decode(generator.dropLast()) == nil)
    }

    /// libsodium 1.0.18 ignores bit 255 of an encoding (later versions refuse it, as RFC 9496
    /// does), so strings with that bit set are compared with RFC 9496 only: they never decode.
    @Test("random 32-byte strings: decoding accepts exactly what libsodium accepts, and re-encodes them unchanged")
    func randomEncodings() throws {
        var random = SplitMix64(seed: 0x7269_7374_7265_7474)
        let generator = try Hex.decode(Self.multiplesOfGenerator[1])
        var accepted = 0
        for round in 0..<2000 {
            var bytes = random.bytes(32)
            if round.isMultiple(of: 2) {  // half of them even and below 2^255, so that more are valid
                bytes[0] &= 0xFE
                bytes[31] &= 0x7F
            }
            let ours = Ristretto255VariableTime.decode(bytes)
            let libsodium = (try? Sr25519.pointAdd(bytes, generator)) != nil
            #expect((ours != nil) == (libsodium && bytes[31] < 0x80), "\(Hex.encode(bytes))")
            if let ours {
                accepted += 1
                #expect(Ristretto255VariableTime.encode(ours) == bytes, "\(Hex.encode(bytes))")
            }
        }
        #expect(accepted > 100)
    }

    @Test("s·B − k·A equals libsodium's constant-time result for random s, k and A")
    func doubleBaseAgreesWithLibsodium() throws {
        var random = SplitMix64(seed: 0x5368_616D_6972)
        for round in 0..<300 {
            let s = Sr25519.reduce(random.bytes(64))
            let k = Sr25519.reduce(random.bytes(64))
            let publicKey = try Sr25519.baseMultiply(Sr25519.reduce(random.bytes(64)))
            let point = try #require(Ristretto255VariableTime.decode(publicKey))
            let ours = Ristretto255VariableTime.encode(Ristretto255VariableTime.baseMinusPointMultiply(s: s, k: k, point: point))
            let libsodium = try Sr25519.pointSubtract(Sr25519.baseMultiply(s), Sr25519.pointMultiply(k, publicKey))
            #expect(ours == libsodium, "round \(round)")
        }
        // The largest scalar, l − 1, exercises the top digits; (l − 1)·B = −B.
        let lMinusOne = try Hex.decode("ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
        let base = Ristretto255VariableTime.basePoint
        let minusB = Ristretto255VariableTime.baseMinusPointMultiply(s: lMinusOne, k: Self.zeroScalar, point: base)
        let minusBAgain = Ristretto255VariableTime.baseMinusPointMultiply(s: Self.zeroScalar, k: Self.scalar(1), point: base)
        #expect(Ristretto255VariableTime.encode(minusB) == Ristretto255VariableTime.encode(minusBAgain))
    }
}

/// A small seeded generator (SplitMix64) so that the randomised tests repeat exactly.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) } }
}
