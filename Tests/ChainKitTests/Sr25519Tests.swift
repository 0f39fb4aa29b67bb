import ChainKit
import Testing

@Suite("sr25519 and Merlin against the golden vectors")
struct Sr25519Tests {
    @Test("Merlin's published test vector")
    func merlin() {
        var transcript = MerlinTranscript(label: "test protocol")
        transcript.append(label: "some label", Array("some data".utf8))
        #expect(
            Hex.encode(transcript.challenge(label: "challenge", count: 32)) == "0xd5a21972d0d5fe320c0d263fac7fffb8145aa640af6e9bca177c03c7efcf0615"
        )
    }

    @Test("key pairs from seeds: public key and the 64-byte secret (scalar / 8 ‖ nonce)")
    func keyPairs() throws {
        for vector in try VectorFile("sr25519").of(kind: "keypair_from_seed") {
            let pair = try Sr25519.keyPair(miniSecret: Hex.decode(vector.string("seed")))
            #expect(Hex.encode(pair.publicKey) == (try vector.string("public_key")), "\(vector.name)")
            #expect(Hex.encode(pair.secretKey) == (try vector.string("secret_key")), "\(vector.name)")
        }
    }

    @Test("hard derivation paths (//Alice, //Alice//stash, long junctions, with a password)")
    func hardDerivation() throws {
        for vector in try VectorFile("sr25519").of(kind: "hard_derivation") {
            var pair = try Sr25519.keyPair(miniSecret: Hex.decode(vector.string("root_mini_secret")))
            for code in try #require(vector["junction_chain_codes"] as? [String]) {
                pair = try Sr25519.deriveHard(pair, chainCode: Hex.decode(code)).keyPair
            }
            #expect(Hex.encode(pair.publicKey) == (try vector.string("public_key")), "\(vector.name)")
            #expect(Hex.encode(pair.secretKey) == (try vector.string("secret_key")), "\(vector.name)")
        }
    }

    @Test("soft derivation of public keys")
    func softDerivation() throws {
        for vector in try VectorFile("sr25519").of(kind: "soft_derivation_public") {
            var publicKey = try Hex.decode(vector.string("parent_public_key"))
            for code in try #require(vector["junction_chain_codes"] as? [String]) {
                publicKey = try Sr25519.deriveSoftPublic(publicKey, chainCode: Hex.decode(code)).publicKey
            }
            #expect(Hex.encode(publicKey) == (try vector.string("public_key")), "\(vector.name)")
        }
    }

    @Test("signing with fixed randomness reproduces the known answer byte for byte")
    func knownAnswer() throws {
        let vector = try #require(try VectorFile("sr25519").of(kind: "sign_fixed_rand").first)
        let pair = Sr25519.KeyPair(publicKey: try Hex.decode(vector.string("public_key")), secretKey: try Hex.decode(vector.string("secret_key")))
        let signature = try Sr25519.sign(Hex.decode(vector.string("message")), keyPair: pair, randomness: Hex.decode(vector.string("rand32")))
        #expect(Hex.encode(signature) == (try vector.string("signature")))
    }

    @Test("oracle signatures verify; every tampered one is rejected")
    func verification() throws {
        let vectors = try VectorFile("sr25519").of(kind: "verify")
        #expect(vectors.contains { $0["valid"] as? Bool == false })
        for vector in vectors {
            let valid = Sr25519.verify(
                try Hex.decode(vector.string("signature")),
                message: try Hex.decode(vector.string("message")),
                publicKey: try Hex.decode(vector.string("public_key")),
                context: Array(try vector.string("context").utf8)
            )
            #expect(valid == (vector["valid"] as? Bool), "\(vector.name)")
        }
    }

    @Test("our signatures verify, are randomised, and fail on another message, key or context")
    func roundTrip() throws {
        let pair = try Sr25519.keyPair(miniSecret: [UInt8](repeating: 7, count: 32))
        let other = try Sr25519.keyPair(miniSecret: [UInt8](repeating: 8, count: 32))
        for length in [0, 1, 300] {
            let message = [UInt8](repeating: 0xAB, count: length)
            let first = try Sr25519.sign(message, keyPair: pair)
            let second = try Sr25519.sign(message, keyPair: pair)
            #expect(first != second)
            #expect(Sr25519.verify(first, message: message, publicKey: pair.publicKey))
            #expect(Sr25519.verify(second, message: message, publicKey: pair.publicKey))
            #expect(!Sr25519.verify(first, message: message + [0], publicKey: pair.publicKey))
            #expect(!Sr25519.verify(first, message: message, publicKey: other.publicKey))
            #expect(!Sr25519.verify(first, message: message, publicKey: pair.publicKey, context: Array("other".utf8)))
        }
        #expect(!Sr25519.verify([UInt8](repeating: 0, count: 63), message: [], publicKey: pair.publicKey))
        #expect(!Sr25519.verify([UInt8](repeating: 0xFF, count: 64), message: [], publicKey: pair.publicKey))
        #expect(!Sr25519.verify(try Sr25519.sign([], keyPair: pair), message: [], publicKey: [UInt8](repeating: 0xFF, count: 32)))
        #expect(throws: ChainKitError(.invalidKey, "")) { try Sr25519.keyPair(miniSecret: [1, 2, 3]) }
    }

    @Test("the variable-time and constant-time verifications agree on random signatures, valid and tampered")
    func bothPathsAgree() throws {
        var random = SplitMix64(seed: 0x7372_3235_3531_39)
        var tamperedAccepted = 0
        for round in 0..<1000 {
            let pair = try Sr25519.keyPair(miniSecret: random.bytes(32))
            let message = random.bytes(Int(random.next() % 100))
            let context = round.isMultiple(of: 3) ? Sr25519.substrateContext : random.bytes(Int(random.next() % 16))
            let signature = try Sr25519.sign(message, keyPair: pair, context: context, randomness: random.bytes(32))
            #expect(Sr25519.verify(signature, message: message, publicKey: pair.publicKey, context: context), "round \(round)")
            #expect(Sr25519.verifyConstantTime(signature, message: message, publicKey: pair.publicKey, context: context), "round \(round)")

            // One bit flipped in the signature, the message, the public key or the context.
            var tampered = (signature: signature, message: message, publicKey: pair.publicKey, context: context)
            let bit = UInt8(1) << UInt8(random.next() % 8)
            switch round % 4 {
            case 0: tampered.signature[Int(random.next() % 64)] ^= bit
            case 1: tampered.message = message.isEmpty ? [bit] : message.enumerated().map { $0.offset == 0 ? $0.element ^ bit : $0.element }
            case 2: tampered.publicKey[Int(random.next() % 32)] ^= bit
            default: tampered.context = context + [bit]
            }
            let fast = Sr25519.verify(tampered.signature, message: tampered.message, publicKey: tampered.publicKey, context: tampered.context)
            let slow = Sr25519.verifyConstantTime(
                tampered.signature,
                message: tampered.message,
                publicKey: tampered.publicKey,
                context: tampered.context
            )
            #expect(fast == slow, "round \(round)")
            if fast { tamperedAccepted += 1 }
        }
        #expect(tamperedAccepted == 0)
    }

    @Test("random 64-byte strings as signatures: both verifications refuse them alike")
    func randomSignatures() throws {
        var random = SplitMix64(seed: 0x6E6F_6973_65)
        let pair = try Sr25519.keyPair(miniSecret: random.bytes(32))
        for round in 0..<300 {
            var signature = random.bytes(64)
            signature[63] |= 0x80
            if round.isMultiple(of: 2) { signature[63] &= 0x8F }  // a canonical s more often
            let fast = Sr25519.verify(signature, message: [1, 2, 3], publicKey: pair.publicKey)
            #expect(fast == Sr25519.verifyConstantTime(signature, message: [1, 2, 3], publicKey: pair.publicKey), "round \(round)")
            #expect(!fast)
        }
    }

    @Test("edge cases refused by both paths: s = 0, the identity as public key, non-canonical s, no marker bit")
    func edgeCases() throws {
        let pair = try Sr25519.keyPair(miniSecret: [UInt8](repeating: 9, count: 32))
        let message = Array("edge".utf8)
        let signature = try Sr25519.sign(message, keyPair: pair)
        let identity = [UInt8](repeating: 0, count: 32)
        var zeroS = signature
        zeroS.replaceSubrange(32..<64, with: [UInt8](repeating: 0, count: 31) + [0x80])
        var largeS = signature
        largeS.replaceSubrange(32..<64, with: [UInt8](repeating: 0xFF, count: 32))
        var noMarker = signature
        noMarker[63] &= 0x7F
        let cases: [(String, [UInt8], [UInt8])] = [
            ("s = 0", zeroS, pair.publicKey),
            ("identity public key", signature, identity),
            ("s = 0 with R = identity and the identity as key", identity + zeroS[32..<64], identity),
            ("s ≥ l", largeS, pair.publicKey),
            ("no schnorrkel marker", noMarker, pair.publicKey),
        ]
        for (name, signature, publicKey) in cases {
            #expect(!Sr25519.verify(signature, message: message, publicKey: publicKey), "\(name)")
            #expect(!Sr25519.verifyConstantTime(signature, message: message, publicKey: publicKey), "\(name)")
        }
    }

    @Test("a public key with bit 255 set is not canonical: refused even under a signature made for those bytes")
    func publicKeyHighBit() throws {
        let pair = try Sr25519.keyPair(miniSecret: [UInt8](repeating: 10, count: 32))
        var highBit = pair.publicKey
        highBit[31] |= 0x80
        let message = Array("high bit".utf8)
        // The transcript commits to the key's bytes, so sign over the altered ones.
        let signature = try Sr25519.sign(message, keyPair: Sr25519.KeyPair(publicKey: highBit, secretKey: pair.secretKey))
        #expect(!Sr25519.verify(signature, message: message, publicKey: highBit))
        #expect(!Sr25519.verifyConstantTime(signature, message: message, publicKey: highBit))
    }
}
