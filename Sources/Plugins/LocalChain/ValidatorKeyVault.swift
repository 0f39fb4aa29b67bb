import Foundation
import HubKernel

/// Keeps validator keys encrypted at rest, under a data key held in the kernel's secrets vault.
///
/// Each chain's 32-byte secp256k1 key is sealed with the kernel's ``KeyEncryptionKey``
/// (XChaCha20-Poly1305) under the rail's data key `rail:localchain/validator-keys`; the chain id
/// is the associated data, so a sealed key copied onto another chain's row does not open. Stored
/// form: `nonce (24) ‖ ciphertext+tag (48)`, in the chain's row as before.
///
/// The data key itself is a vault secret, sealed under the hub's key-encryption key
/// (`HUB_SECRETS_KEY_FILE`) and re-sealed by `hubd secrets rotate`. It is declared when the plugin
/// starts and loaded by the vault at start-up, so sealing inside a unit of work needs no I/O.
///
/// Migration: before the vault, the rail kept that 32-byte key in its own file (`key_file`,
/// `HUB_LOCALCHAIN_KEY_FILE`). On the first start with the vault, that file's key becomes the
/// data key (so every chain's sealed key still opens) and, on a hub with no secrets key file yet,
/// the vault's key-encryption key too. The file is not read afterwards; while it exists it is
/// still refused when readable by group or others, since it still opens the chains' keys.
final class ValidatorKeyVault: Sendable {
    /// The vault name of the data key (in the rail's namespace).
    static let dataKeyName = "validator-keys"

    private let source: Source

    private enum Source: Sendable {
        case vault(RailSecrets)
        case key(KeyEncryptionKey)
    }

    /// The vault's data key, taken from `legacyKeyFile` on the first start if that file exists.
    init(secrets: RailSecrets, legacyKeyFile: String) throws {
        try secrets.declareDataKey(Self.dataKeyName, adoptingLegacyFile: legacyKeyFile)
        source = .vault(secrets)
    }

    /// A vault over a known data key (tests, tools).
    init(key: KeyEncryptionKey) { source = .key(key) }

    /// A fresh random private key (valid for secp256k1: the system's CSPRNG, getrandom(2) on
    /// Linux, retried in the astronomically unlikely case it is zero or above the curve order).
    static func randomPrivateKey(isValid: ([UInt8]) -> Bool) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        while true {
            let key = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            if isValid(key) { return key }
        }
    }

    func seal(_ privateKey: [UInt8], chainID: UInt64) throws -> [UInt8] {
        try keyEncryptionKey().seal(privateKey, associatedData: Self.associatedData(chainID))
    }

    func open(_ sealed: [UInt8], chainID: UInt64) throws -> [UInt8] {
        guard sealed.count == KeyEncryptionKey.overhead + 32 else { throw LocalChainFailure("a sealed validator key has the wrong length") }
        guard let key = try keyEncryptionKey().open(sealed, associatedData: Self.associatedData(chainID)), key.count == 32 else {
            throw LocalChainFailure(
                "the validator key of chain \(chainID) does not open with the rail's data key (rail:localchain/validator-keys): another database or secrets key file?"
            )
        }
        return key
    }

    static func associatedData(_ chainID: UInt64) -> [UInt8] { Array("hubd-localchain-validator:\(chainID)".utf8) }

    /// The data key, from the vault's memory (loaded at start-up).
    func keyEncryptionKey() throws -> KeyEncryptionKey {
        switch source {
        case .vault(let secrets): try secrets.dataKey(Self.dataKeyName)
        case .key(let key): key
        }
    }

    /// What is wrong with the legacy key file (open to group or others, or not 32 bytes), or
    /// `nil` when it is sound or does not exist. Checked at start-up (the plugin refuses to
    /// start) and by readiness: while it exists it still opens the chains' keys.
    static func problem(at path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0o777
        guard mode & 0o077 == 0 else {
            return "the key file \(path) is readable by others (mode \(String(mode, radix: 8))): run `chmod 600 \(path)`"
        }
        guard (attributes[.size] as? NSNumber)?.intValue == 32 else {
            return "the key file \(path) must hold exactly 32 bytes (the local chain's key-encryption key)"
        }
        return nil
    }
}

/// A failure of the rail's own machinery (key file, stored data), as opposed to bad input.
struct LocalChainFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
