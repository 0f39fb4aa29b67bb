import COpenSSL
import CSodium
public import Foundation

/// Web3 Secret Storage (keystore v3): a private key encrypted with AES-128-CTR under a key derived
/// from a password by scrypt or PBKDF2-HMAC-SHA256, with a keccak-256 MAC. Files written here open
/// in standard Ethereum wallets and libraries, and theirs open here.
public enum Keystore {
    /// How the password becomes a key.
    public enum KDF: Sendable, Hashable {
        case scrypt(n: UInt64, r: UInt32, p: UInt32)
        case pbkdf2(iterations: UInt32)

        /// What wallets write by default today.
        public static let standard = KDF.scrypt(n: 262_144, r: 8, p: 1)
    }

    /// Limits on what a keystore may ask of us: a hostile file must not make decryption take
    /// gigabytes or hours.
    public static let maximumScryptMemory: UInt64 = 1 << 30
    public static let maximumPBKDF2Iterations: UInt32 = 10_000_000

    /// Encrypts a 32-byte private key.
    /// - Parameters:
    ///   - salt: 32 random bytes unless given (tests give them to get fixed output).
    ///   - iv: 16 random bytes unless given.
    ///   - id: a random UUID unless given.
    /// - Returns: the keystore as JSON text.
    public static func encrypt(
        privateKey: [UInt8],
        password: String,
        kdf: KDF = .standard,
        salt: [UInt8]? = nil,
        iv: [UInt8]? = nil,
        id: UUID = UUID()
    ) throws -> String {
        let address = try EthereumAddress(publicKey: Secp256k1.publicKey(privateKey: privateKey))
        var generator = SystemRandomNumberGenerator()
        let salt = salt ?? (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let iv = iv ?? (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        guard iv.count == 16 else { throw ChainKitError(.outOfRange, "the AES-128-CTR iv must be 16 bytes") }
        let derived = try deriveKey(password: password, salt: salt, kdf: kdf, length: 32)
        let ciphertext = try aes128ctr(key: Array(derived[0..<16]), iv: iv, Array(privateKey))
        let mac = Keccak256.hash(derived[16..<32] + ciphertext)

        let kdfParams: [String: Any]
        switch kdf {
        case .scrypt(let n, let r, let p): kdfParams = ["dklen": 32, "n": n, "r": r, "p": p, "salt": Hex.encode(salt, prefix: false)]
        case .pbkdf2(let c): kdfParams = ["dklen": 32, "c": c, "prf": "hmac-sha256", "salt": Hex.encode(salt, prefix: false)]
        }
        let document: [String: Any] = [
            "version": 3,
            "id": id.uuidString.lowercased(),
            "address": Hex.encode(address.bytes, prefix: false),
            "crypto": [
                "cipher": "aes-128-ctr",
                "cipherparams": ["iv": Hex.encode(iv, prefix: false)],
                "ciphertext": Hex.encode(ciphertext, prefix: false),
                "kdf": kdf.name,
                "kdfparams": kdfParams,
                "mac": Hex.encode(mac, prefix: false),
            ] as [String: Any],
        ]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// Decrypts a keystore and returns the 32-byte private key.
    /// - Throws: `invalid_key` for a wrong password or altered file (MAC mismatch), or for a file
    ///   that is not keystore v3 (naming the field), or whose KDF parameters exceed the limits.
    public static func decrypt(_ json: String, password: String) throws -> [UInt8] {
        guard let document = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw ChainKitError(.invalidKey, "the keystore is not a JSON object")
        }
        guard (document["version"] as? NSNumber)?.intValue == 3 else {
            throw ChainKitError(.invalidKey, "only keystore version 3 is supported")
        }
        guard let crypto = (document["crypto"] ?? document["Crypto"]) as? [String: Any] else {
            throw ChainKitError(.invalidKey, "the keystore has no crypto section")
        }
        guard crypto["cipher"] as? String == "aes-128-ctr" else {
            throw ChainKitError(.invalidKey, "cipher must be aes-128-ctr, got \(crypto["cipher"] ?? "nothing")")
        }
        let iv = try field(hex: (crypto["cipherparams"] as? [String: Any])?["iv"], "crypto.cipherparams.iv", length: 16)
        let ciphertext = try field(hex: crypto["ciphertext"], "crypto.ciphertext", length: nil)
        let mac = try field(hex: crypto["mac"], "crypto.mac", length: 32)
        guard let params = crypto["kdfparams"] as? [String: Any] else { throw ChainKitError(.invalidKey, "crypto.kdfparams is missing") }
        let salt = try field(hex: params["salt"], "crypto.kdfparams.salt", length: nil)
        let length = (params["dklen"] as? NSNumber)?.intValue ?? 32
        guard length >= 32, length <= 64 else { throw ChainKitError(.invalidKey, "crypto.kdfparams.dklen must be 32 to 64") }

        let kdf: KDF
        switch crypto["kdf"] as? String {
        case "scrypt":
            guard let n = (params["n"] as? NSNumber)?.uint64Value, let r = (params["r"] as? NSNumber)?.uint32Value,
                let p = (params["p"] as? NSNumber)?.uint32Value
            else { throw ChainKitError(.invalidKey, "crypto.kdfparams needs n, r and p for scrypt") }
            kdf = .scrypt(n: n, r: r, p: p)
        case "pbkdf2":
            guard params["prf"] as? String == "hmac-sha256" else {
                throw ChainKitError(.invalidKey, "crypto.kdfparams.prf must be hmac-sha256")
            }
            guard let c = (params["c"] as? NSNumber)?.uint32Value else { throw ChainKitError(.invalidKey, "crypto.kdfparams.c is missing") }
            kdf = .pbkdf2(iterations: c)
        default:
            throw ChainKitError(.invalidKey, "crypto.kdf must be scrypt or pbkdf2")
        }
        let derived = try deriveKey(password: password, salt: salt, kdf: kdf, length: length)
        let expected = Keccak256.hash(derived[16..<32] + ciphertext)
        guard constantTimeEqual(expected, mac) else {
            throw ChainKitError(.invalidKey, "the MAC does not match: wrong password or an altered keystore")
        }
        let privateKey = try aes128ctr(key: Array(derived[0..<16]), iv: iv, ciphertext)
        guard privateKey.count == 32 else { throw ChainKitError(.invalidKey, "the decrypted key is \(privateKey.count) bytes, not 32") }
        return privateKey
    }

    /// The KDF step on its own (exposed for tests against published derived keys).
    public static func deriveKey(password: String, salt: [UInt8], kdf: KDF, length: Int) throws -> [UInt8] {
        let passwordBytes = Array(password.utf8)
        var out = [UInt8](repeating: 0, count: length)
        switch kdf {
        case .scrypt(let n, let r, let p):
            guard n >= 2, n.nonzeroBitCount == 1, r >= 1, p >= 1 else {
                throw ChainKitError(.invalidKey, "scrypt needs n a power of two ≥ 2, and r, p ≥ 1")
            }
            let memory = 128 * UInt64(r) * n
            guard memory <= maximumScryptMemory, UInt64(r) * UInt64(p) < 1 << 30 else {
                throw ChainKitError(.invalidKey, "scrypt parameters n=\(n) r=\(r) p=\(p) need more than \(maximumScryptMemory >> 20) MiB")
            }
            // libsodium's low-level scrypt: OpenSSL refuses r=1 with large n (the spec's own vector).
            let status = crypto_pwhash_scryptsalsa208sha256_ll(passwordBytes, passwordBytes.count, salt, salt.count, n, r, p, &out, out.count)
            guard status == 0 else { throw ChainKitError(.invalidKey, "scrypt failed (out of memory?)") }
        case .pbkdf2(let iterations):
            guard iterations >= 1, iterations <= maximumPBKDF2Iterations else {
                throw ChainKitError(.invalidKey, "pbkdf2 iterations must be 1 to \(maximumPBKDF2Iterations)")
            }
            let status = passwordBytes.withUnsafeBufferPointer { pass in
                pass.withMemoryRebound(to: CChar.self) { passChars in
                    PKCS5_PBKDF2_HMAC(
                        passChars.baseAddress,
                        Int32(pass.count),
                        salt,
                        Int32(salt.count),
                        Int32(iterations),
                        EVP_sha256(),
                        Int32(length),
                        &out
                    )
                }
            }
            guard status == 1 else { throw ChainKitError(.invalidKey, "PBKDF2 failed") }
        }
        return out
    }

    static func aes128ctr(key: [UInt8], iv: [UInt8], _ input: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_CIPHER_CTX_new() else { throw ChainKitError(.invalidKey, "cannot allocate a cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, EVP_aes_128_ctr(), nil, key, iv) == 1 else { throw ChainKitError(.invalidKey, "AES-128-CTR init failed") }
        var out = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        guard EVP_EncryptUpdate(context, &out, &written, input, Int32(input.count)) == 1 else {
            throw ChainKitError(.invalidKey, "AES-128-CTR failed")
        }
        return Array(out[0..<Int(written)])
    }

    static func field(hex value: Any?, _ name: String, length: Int?) throws -> [UInt8] {
        guard let text = value as? String else { throw ChainKitError(.invalidKey, "\(name) is missing") }
        do {
            return try Hex.decode(text, length: length)
        } catch {
            throw ChainKitError(.invalidKey, "\(name) is not valid hex\(length.map { " of \($0) bytes" } ?? "")")
        }
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

extension Keystore.KDF {
    var name: String {
        switch self {
        case .scrypt: "scrypt"
        case .pbkdf2: "pbkdf2"
        }
    }
}
