import CSodium
import Foundation

/// sr25519 as Substrate uses it: Schnorr signatures over ristretto255 with Merlin transcripts
/// (schnorrkel), keys expanded from a 32-byte mini secret in "ed25519 mode", and HDKD hard and soft
/// derivation. Group arithmetic comes from the system libsodium.
public enum Sr25519 {
    /// A key pair. `secretKey` is 64 bytes: the scalar (divided by the cofactor, as Substrate
    /// stores it) followed by the 32-byte signing nonce seed.
    public struct KeyPair: Sendable, Hashable {
        public let publicKey: [UInt8]
        public let secretKey: [UInt8]

        /// A key pair from stored bytes (32-byte public key, 64-byte secret key).
        public init(publicKey: [UInt8], secretKey: [UInt8]) {
            self.publicKey = publicKey
            self.secretKey = secretKey
        }
    }

    /// The signing context Substrate uses for extrinsics and sign-in.
    public static let substrateContext = Array("substrate".utf8)

    /// Expands a 32-byte mini secret (e.g. from a BIP39 phrase) into a key pair.
    public static func keyPair(miniSecret: [UInt8]) throws -> KeyPair {
        guard miniSecret.count == 32 else { throw ChainKitError(.invalidKey, "a mini secret is 32 bytes, got \(miniSecret.count)") }
        precondition(libsodiumReady, "sodium_init() failed")
        var hash = [UInt8](repeating: 0, count: 64)
        crypto_hash_sha512(&hash, miniSecret, 32)
        var scalar = Array(hash[0..<32])
        scalar[0] &= 248
        scalar[31] &= 63
        scalar[31] |= 64
        let key = divideByCofactor(scalar)
        return KeyPair(publicKey: try baseMultiply(key), secretKey: key + Array(hash[32..<64]))
    }

    /// Signs `message` in `context`. Randomised: pass `randomness` only for known-answer tests.
    public static func sign(
        _ message: [UInt8],
        keyPair: KeyPair,
        context: [UInt8] = substrateContext,
        randomness: [UInt8]? = nil
    ) throws -> [UInt8] {
        guard keyPair.secretKey.count == 64, keyPair.publicKey.count == 32 else {
            throw ChainKitError(.invalidKey, "an sr25519 key pair is a 32-byte public and a 64-byte secret key")
        }
        let key = Array(keyPair.secretKey[0..<32])
        let nonce = Array(keyPair.secretKey[32..<64])
        var transcript = signingTranscript(message, context: context)
        transcript.append(label: "proto-name", Array("Schnorr-sig".utf8))
        transcript.append(label: "sign:pk", keyPair.publicKey)
        var generator = SystemRandomNumberGenerator()
        let random = randomness ?? (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let r = reduce(transcript.witnessBytes(label: "signing", nonceSeeds: [nonce], count: 64, randomness: random))
        let bigR = try baseMultiply(r)
        transcript.append(label: "sign:R", bigR)
        let k = reduce(transcript.challenge(label: "sign:c", count: 64))
        var s = add(multiply(k, key), r)
        s[31] |= 0x80  // schnorrkel's marker: distinguishes these signatures from older encodings
        return bigR + s
    }

    /// Verifies a 64-byte signature. Returns `false` for anything malformed.
    ///
    /// Checks `R = s·B − k·A` with one variable-time double-base multiplication
    /// (``Ristretto255VariableTime``): every input to it is public (the signature's s, the
    /// challenge k from the transcript of public data, the public key A), so nothing secret can
    /// leak through its timing. ``verifyConstantTime(_:message:publicKey:context:)`` is the same
    /// check on libsodium's constant-time single-base multiplications, kept to test against.
    public static func verify(_ signature: [UInt8], message: [UInt8], publicKey: [UInt8], context: [UInt8] = substrateContext) -> Bool {
        guard let equation = verificationEquation(signature, message: message, publicKey: publicKey, context: context),
            let a = Ristretto255VariableTime.decode(publicKey)
        else { return false }
        let difference = Ristretto255VariableTime.baseMinusPointMultiply(s: equation.s, k: equation.k, point: a)
        return Ristretto255VariableTime.encode(difference) == equation.bigR
    }

    /// ``verify(_:message:publicKey:context:)`` by two constant-time multiplications in libsodium:
    /// about 2.3 times slower, kept so tests can compare the fast path against it.
    package static func verifyConstantTime(
        _ signature: [UInt8],
        message: [UInt8],
        publicKey: [UInt8],
        context: [UInt8] = substrateContext
    ) -> Bool {
        guard let equation = verificationEquation(signature, message: message, publicKey: publicKey, context: context),
            crypto_core_ristretto255_is_valid_point(publicKey) == 1,
            let sB = try? baseMultiply(equation.s), let kA = try? pointMultiply(equation.k, publicKey),
            let difference = try? pointSubtract(sB, kA)
        else { return false }
        return difference == equation.bigR
    }

    /// The parts of `R = s·B − k·A` both verification paths share: the signature's shape, its
    /// canonical s and the transcript challenge k. Nil when the signature is malformed, and also
    /// when s = 0 or k·A is the identity (A the identity, or k = 0), which libsodium's
    /// multiplications refuse; both paths refuse them so that they agree on every input. A public
    /// key with bit 255 set is refused too: RFC 9496 and schnorrkel call that encoding
    /// non-canonical, but libsodium 1.0.18 ignores the bit and would accept it.
    private static func verificationEquation(
        _ signature: [UInt8],
        message: [UInt8],
        publicKey: [UInt8],
        context: [UInt8]
    ) -> (bigR: [UInt8], s: [UInt8], k: [UInt8])? {
        precondition(libsodiumReady, "sodium_init() failed")
        guard signature.count == 64, publicKey.count == 32, signature[63] & 0x80 != 0, publicKey[31] & 0x80 == 0 else { return nil }
        let bigR = Array(signature[0..<32])
        var s = Array(signature[32..<64])
        s[31] &= 0x7F
        guard reduce(s + [UInt8](repeating: 0, count: 32)) == s else { return nil }  // canonical scalar
        var transcript = signingTranscript(message, context: context)
        transcript.append(label: "proto-name", Array("Schnorr-sig".utf8))
        transcript.append(label: "sign:pk", publicKey)
        transcript.append(label: "sign:R", bigR)
        let k = reduce(transcript.challenge(label: "sign:c", count: 64))
        guard s.contains(where: { $0 != 0 }), k.contains(where: { $0 != 0 }), publicKey.contains(where: { $0 != 0 }) else { return nil }
        return (bigR, s, k)
    }

    /// Hard derivation (`//junction`): a new key pair and chain code from a secret key.
    public static func deriveHard(_ keyPair: KeyPair, chainCode: [UInt8]) throws -> (keyPair: KeyPair, chainCode: [UInt8]) {
        guard chainCode.count == 32 else { throw ChainKitError(.invalidKey, "a chain code is 32 bytes") }
        var transcript = MerlinTranscript(label: "SchnorrRistrettoHDKD")
        transcript.append(label: "sign-bytes", [])
        transcript.append(label: "chain-code", chainCode)
        transcript.append(label: "secret-key", Array(keyPair.secretKey[0..<32]))
        let mini = transcript.challenge(label: "HDKD-hard", count: 32)
        let nextChainCode = transcript.challenge(label: "HDKD-chaincode", count: 32)
        return (try self.keyPair(miniSecret: mini), nextChainCode)
    }

    /// Soft derivation (`/junction`) of a public key. (Soft-derived secret keys take a random
    /// nonce, so only the public side is reproducible.)
    public static func deriveSoftPublic(_ publicKey: [UInt8], chainCode: [UInt8]) throws -> (publicKey: [UInt8], chainCode: [UInt8]) {
        guard chainCode.count == 32, publicKey.count == 32 else { throw ChainKitError(.invalidKey, "a chain code and a public key are 32 bytes") }
        var transcript = MerlinTranscript(label: "SchnorrRistrettoHDKD")
        transcript.append(label: "sign-bytes", [])
        transcript.append(label: "chain-code", chainCode)
        transcript.append(label: "public-key", publicKey)
        let scalar = reduce(transcript.challenge(label: "HDKD-scalar", count: 64))
        let nextChainCode = transcript.challenge(label: "HDKD-chaincode", count: 32)
        return (try pointAdd(publicKey, baseMultiply(scalar)), nextChainCode)
    }

    static func signingTranscript(_ message: [UInt8], context: [UInt8]) -> MerlinTranscript {
        var transcript = MerlinTranscript(label: "SigningContext")
        transcript.append(label: "", context)
        transcript.append(label: "sign-bytes", message)
        return transcript
    }

    /// schnorrkel stores the ed25519-style clamped scalar divided by the cofactor 8.
    static func divideByCofactor(_ scalar: [UInt8]) -> [UInt8] {
        var out = scalar
        var low: UInt8 = 0
        for index in stride(from: 31, through: 0, by: -1) {
            let remainder = out[index] & 7
            out[index] = (out[index] >> 3) + low
            low = remainder << 5
        }
        return out
    }

    // MARK: ristretto255 through libsodium

    package static func reduce(_ wide: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        crypto_core_ristretto255_scalar_reduce(&out, wide)
        return out
    }

    static func multiply(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        crypto_core_ristretto255_scalar_mul(&out, a, b)
        return out
    }

    static func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        crypto_core_ristretto255_scalar_add(&out, a, b)
        return out
    }

    package static func baseMultiply(_ scalar: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        guard crypto_scalarmult_ristretto255_base(&out, scalar) == 0 else { throw ChainKitError(.invalidKey, "the scalar is zero") }
        return out
    }

    package static func pointMultiply(_ scalar: [UInt8], _ point: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        guard crypto_scalarmult_ristretto255(&out, scalar, point) == 0 else { throw ChainKitError(.invalidKey, "invalid point or zero result") }
        return out
    }

    package static func pointAdd(_ p: [UInt8], _ q: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        guard crypto_core_ristretto255_add(&out, p, q) == 0 else { throw ChainKitError(.invalidKey, "not a ristretto255 point") }
        return out
    }

    package static func pointSubtract(_ p: [UInt8], _ q: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        guard crypto_core_ristretto255_sub(&out, p, q) == 0 else { throw ChainKitError(.invalidKey, "not a ristretto255 point") }
        return out
    }
}
