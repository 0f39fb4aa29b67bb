import ChainKit
import Testing

@Suite("ed25519 and derivation paths against the golden vectors")
struct Ed25519Tests {
    @Test("key pairs and deterministic signatures")
    func signatures() throws {
        for vector in try VectorFile("ed25519").of(kind: "keypair_from_seed") {
            let pair = try Ed25519.keyPair(seed: Hex.decode(vector.string("seed")))
            #expect(Hex.encode(pair.publicKey) == (try vector.string("public_key")), "\(vector.name)")
        }
        for vector in try VectorFile("ed25519").of(kind: "sign") {
            let pair = try Ed25519.keyPair(seed: Hex.decode(vector.string("seed")))
            let message = try Hex.decode(vector.string("message"))
            #expect(Hex.encode(Ed25519.sign(message, keyPair: pair)) == (try vector.string("signature")), "\(vector.name)")
            #expect(Ed25519.verify(try Hex.decode(vector.string("signature")), message: message, publicKey: pair.publicKey))
        }
        for vector in try VectorFile("ed25519").of(kind: "verify") {
            let valid = Ed25519.verify(
                try Hex.decode(vector.string("signature")),
                message: try Hex.decode(vector.string("message")),
                publicKey: try Hex.decode(vector.string("public_key"))
            )
            #expect(valid == (vector["valid"] as? Bool), "\(vector.name)")
        }
    }

    @Test("hard derivation, with chain codes computed from the path text")
    func hardDerivation() throws {
        for vector in try VectorFile("ed25519").of(kind: "hard_derivation") {
            let path = try vector.string("path")
            let junctions = try DerivationJunction.parsePath(path)
            #expect(junctions.map { Hex.encode($0.chainCode) } == vector["junction_chain_codes"] as? [String], "\(vector.name)")
            var pair = try Ed25519.keyPair(seed: Hex.decode(vector.string("root_seed")))
            for junction in junctions { pair = try Ed25519.deriveHard(pair, chainCode: junction.chainCode) }
            #expect(Hex.encode(pair.seed) == (try vector.string("derived_seed")), "\(vector.name)")
            #expect(Hex.encode(pair.publicKey) == (try vector.string("public_key")), "\(vector.name)")
            #expect(try SS58.encode(pair.publicKey, prefix: 42) == (try vector.string("ss58_42")))
        }
    }

    @Test("sr25519 derivation paths yield the vectors' chain codes, and a full secret URI derives //Alice")
    func sr25519Paths() throws {
        for kind in ["hard_derivation", "soft_derivation_public"] {
            for vector in try VectorFile("sr25519").of(kind: kind) {
                let path = try vector["path"] as? String ?? vector.string("soft_path")
                let codes = try DerivationJunction.parsePath(path).map { Hex.encode($0.chainCode) }
                #expect(codes == vector["junction_chain_codes"] as? [String], "\(vector.name)")
            }
        }
        let uri = try SecretURI("//Alice///hubd")
        #expect(uri.phrase == SecretURI.devPhrase)
        #expect(uri.password == "hubd")
        #expect(uri.junctions.count == 1 && uri.junctions[0].isHard)
        let mixed = try SecretURI("\(SecretURI.devPhrase)//Alice/0//1")
        #expect(mixed.junctions.map(\.isHard) == [true, false, true])
    }

    @Test("a soft junction is refused for ed25519")
    func softRefused() throws {
        for vector in try VectorFile("ed25519").of(kind: "derivation_error") {
            let pair = try Ed25519.keyPair(seed: [UInt8](repeating: 1, count: 32))
            #expect(throws: ChainKitError(.invalidKey, ""), "\(vector.name)") {
                try Ed25519.derive(pair, path: DerivationJunction.parsePath(vector.string("path")))
            }
        }
    }

    @Test("malformed paths and keys are refused")
    func badInput() {
        #expect(throws: ChainKitError(.invalidKey, "")) { try DerivationJunction.parsePath("Alice") }
        #expect(throws: ChainKitError(.invalidKey, "")) { try DerivationJunction.parsePath("//Alice//") }
        #expect(throws: ChainKitError(.invalidKey, "")) { try Ed25519.keyPair(seed: [1]) }
        #expect(!Ed25519.verify([0], message: [], publicKey: [UInt8](repeating: 0, count: 32)))
    }
}
