import ChainKit
import HubKernel
import Synchronization

/// Keeps custodial wallets' secrets encrypted at rest: the 16 bytes of entropy behind a wallet's
/// 12-word mnemonic, sealed (XChaCha20-Poly1305) under the rail's data key
/// `rail:substrate/wallet-secrets`, itself a vault secret sealed under the hub's key-encryption
/// key and re-sealed by `hubd secrets rotate`. The public key is the associated data, so a sealed
/// secret copied onto another row does not open.
struct WalletSecrets: Sendable {
    static let dataKeyName = "wallet-secrets"

    let secrets: RailSecrets
    /// Key pairs already derived, by public key (``keyPair(sealed:publicKey:address:)``).
    private let derived = DerivedKeyPairs()

    /// Declares the data key; call from the plugin's `init` so the vault loads it at start-up.
    init(secrets: RailSecrets) throws {
        try secrets.declareDataKey(Self.dataKeyName)
        self.secrets = secrets
    }

    /// For a key already declared (tests read what the rail sealed).
    init(opening secrets: RailSecrets) {
        self.secrets = secrets
    }

    /// A new custodial sr25519 wallet as Substrate wallets make one: 128 bits of entropy, its
    /// 12-word BIP39 mnemonic, substrate-bip39's mini secret (PBKDF2 over the entropy, no
    /// password) and the key pair it expands to. The PBKDF2 is 2048 rounds, about a millisecond:
    /// CPU work, run inline like a signature check.
    static func newWallet() throws -> (entropy: [UInt8], mnemonic: String, keyPair: Sr25519.KeyPair) {
        var generator = SystemRandomNumberGenerator()
        let entropy = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let mnemonic = try BIP39.mnemonic(fromEntropy: entropy)
        let keyPair = try Sr25519.keyPair(miniSecret: BIP39.substrateMiniSecret(entropy: entropy))
        return (entropy, mnemonic, keyPair)
    }

    /// Seals `entropy` for the wallet `publicKey`. Synchronous, for use inside a unit of work.
    func seal(_ entropy: [UInt8], publicKey: [UInt8]) throws -> [UInt8] {
        try secrets.dataKey(Self.dataKeyName).seal(entropy, associatedData: Self.associatedData(publicKey))
    }

    /// The entropy sealed for `publicKey`.
    func open(_ sealed: [UInt8], publicKey: [UInt8], address: String) throws -> [UInt8] {
        guard let entropy = try secrets.dataKey(Self.dataKeyName).open(sealed, associatedData: Self.associatedData(publicKey)),
            BIP39.entropyLengths.contains(entropy.count)
        else { throw SubstrateError.keyUnavailable(address) }
        return entropy
    }

    /// The sr25519 key pair of the wallet or sensor `publicKey` whose entropy is `sealed`: opened
    /// and derived (substrate-bip39's PBKDF2, 2048 rounds of HMAC-SHA512, the bulk of a DID
    /// write's work) the first time, then kept in memory, so a custodial key's changes after the
    /// first cost one signature each. The process holds the data key that opens every sealed
    /// secret anyway; keeping the derived pairs adds no secret it could not already compute.
    /// - Throws: `key_unavailable` when the secret does not open or is not `publicKey`'s.
    func keyPair(sealed: [UInt8], publicKey: [UInt8], address: String) throws -> Sr25519.KeyPair {
        if let kept = derived.keyPair(publicKey) { return kept }
        let keyPair = try Sr25519.keyPair(miniSecret: BIP39.substrateMiniSecret(entropy: open(sealed, publicKey: publicKey, address: address)))
        guard keyPair.publicKey == publicKey else { throw SubstrateError.keyUnavailable(address) }
        derived.keep(keyPair)
        return keyPair
    }

    private static func associatedData(_ publicKey: [UInt8]) -> [UInt8] {
        Array("substrate:wallet:".utf8) + publicKey
    }
}

/// Derived key pairs by public key, at most ``capacity`` (then the map starts again: a hub with
/// more active custodial keys than that derives some twice, nothing worse).
private final class DerivedKeyPairs: Sendable {
    static let capacity = 4096
    private let pairs = Mutex<[[UInt8]: Sr25519.KeyPair]>([:])

    func keyPair(_ publicKey: [UInt8]) -> Sr25519.KeyPair? { pairs.withLock { $0[publicKey] } }

    func keep(_ keyPair: Sr25519.KeyPair) {
        pairs.withLock { pairs in
            if pairs.count >= Self.capacity { pairs.removeAll(keepingCapacity: true) }
            pairs[keyPair.publicKey] = keyPair
        }
    }
}
