import ChainKit
import Foundation
import Testing

@Suite("Keystore v3 against the golden vectors", .timeLimit(.minutes(4)))
struct KeystoreTests {
    func kdf(_ vector: [String: Any]) throws -> Keystore.KDF {
        if try vector.string("kdf") == "scrypt" {
            return .scrypt(
                n: try #require((vector["n"] as? NSNumber)?.uint64Value),
                r: try #require((vector["r"] as? NSNumber)?.uint32Value),
                p: try #require((vector["p"] as? NSNumber)?.uint32Value)
            )
        }
        return .pbkdf2(iterations: try #require((vector["c"] as? NSNumber)?.uint32Value))
    }

    func keystoreText(_ vector: [String: Any]) throws -> String {
        let document = try #require(vector["keystore"])
        return String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
    }

    @Test("spec and generated keystores decrypt; derived keys match; encryption reproduces them byte for byte")
    func decryptAndEncrypt() throws {
        for vector in try VectorFile("keystore").of(kind: "decrypt") {
            let password = try vector.string("password")
            let salt = try Hex.decode(vector.string("salt"))
            let iv = try Hex.decode(vector.string("iv"))
            let kdf = try kdf(vector)
            #expect(Hex.encode(try Keystore.deriveKey(password: password, salt: salt, kdf: kdf, length: 32)) == (try vector.string("derived_key")))
            let privateKey = try Keystore.decrypt(keystoreText(vector), password: password)
            #expect(Hex.encode(privateKey) == (try vector.string("private_key")), "\(vector.name)")

            // Encrypting the same key with the same salt and iv gives the same ciphertext and MAC,
            // and the file we write decrypts again.
            let written = try Keystore.encrypt(privateKey: privateKey, password: password, kdf: kdf, salt: salt, iv: iv)
            let crypto = try #require((try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])?["crypto"] as? [String: Any])
            #expect("0x" + (crypto["ciphertext"] as? String ?? "") == (try vector.string("ciphertext")), "\(vector.name)")
            #expect("0x" + (crypto["mac"] as? String ?? "") == (try vector.string("mac")), "\(vector.name)")
            #expect(try Keystore.decrypt(written, password: password) == privateKey)
        }
    }

    @Test("a wrong password or an altered ciphertext fails the MAC")
    func rejects() throws {
        for vector in try VectorFile("keystore").of(kind: "reject") {
            #expect(throws: ChainKitError(.invalidKey, ""), "\(vector.name)") {
                try Keystore.decrypt(keystoreText(vector), password: vector.string("password"))
            }
        }
    }

    @Test(
        "malformed or hostile keystores are refused before any work",
        arguments: [
            #"not json"#,
            #"{"version": 1, "crypto": {}}"#,
            #"{"version": 3}"#,
            #"{"version": 3, "crypto": {"cipher": "aes-256-gcm"}}"#,
            #"{"version": 3, "crypto": {"cipher": "aes-128-ctr", "cipherparams": {"iv": "00"}, "ciphertext": "00", "mac": "00", "kdf": "scrypt", "kdfparams": {}}}"#,
            #"{"version": 3, "crypto": {"cipher": "aes-128-ctr", "cipherparams": {"iv": "000102030405060708090a0b0c0d0e0f"}, "ciphertext": "00", "mac": "0000000000000000000000000000000000000000000000000000000000000000", "kdf": "scrypt", "kdfparams": {"n": 1073741824, "r": 8, "p": 1, "salt": "00", "dklen": 32}}}"#,
        ]
    )
    func malformed(json: String) {
        #expect(throws: ChainKitError(.invalidKey, "")) { try Keystore.decrypt(json, password: "x") }
    }
}
