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
}
