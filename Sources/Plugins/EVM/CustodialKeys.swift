import ChainKit
import HubKernel

/// Keeps the custodial accounts' private keys encrypted at rest, as the local chain keeps its
/// validator keys: each 32-byte secp256k1 key sealed (XChaCha20-Poly1305) under the rail's data
/// key `rail:evm/custodial-keys`, itself a vault secret sealed under the hub's key-encryption key
/// and re-sealed by `hubd secrets rotate`. The chain and address are the associated data, so a
/// sealed key copied onto another row does not open. Owners take a key out only as a keystore v3
/// file under a password of their choosing (``CustodialAccounts/exportKeystore(user:chain:password:)``).
struct CustodialKeys: Sendable {
    static let dataKeyName = "custodial-keys"

    let secrets: RailSecrets

    /// Declares the data key; call from the plugin's `init` so the vault loads it at start-up.
    init(secrets: RailSecrets) throws {
        try secrets.declareDataKey(Self.dataKeyName)
        self.secrets = secrets
    }

    /// A new random key and its address.
    static func newKey() -> (privateKey: [UInt8], address: EthereumAddress) {
        var generator = SystemRandomNumberGenerator()
        while true {
            let key = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            if let publicKey = try? Secp256k1.publicKey(privateKey: key), let address = try? EthereumAddress(publicKey: publicKey) {
                return (key, address)
            }
        }
    }

    func seal(_ privateKey: [UInt8], chain: String, address: EthereumAddress) throws -> [UInt8] {
        try secrets.dataKey(Self.dataKeyName).seal(privateKey, associatedData: Self.associatedData(chain, address))
    }

    func open(_ sealed: [UInt8], chain: String, address: EthereumAddress) throws -> [UInt8] {
        guard let key = try secrets.dataKey(Self.dataKeyName).open(sealed, associatedData: Self.associatedData(chain, address)), key.count == 32
        else {
            throw EVMError(
                kind: .unavailable,
                errorCode: "key_unavailable",
                message: "The key of \(address.checksummed) does not open with the rail's data key: another database or secrets key file?"
            )
        }
        return key
    }

    private static func associatedData(_ chain: String, _ address: EthereumAddress) -> [UInt8] {
        Array("evm:custodial:\(chain):".utf8) + address.bytes
    }
}
