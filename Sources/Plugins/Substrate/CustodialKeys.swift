import ChainKit
import HubKernel

/// The sr25519 keys the hub holds: custodial wallets' and the sensors' it made, each sealed by
/// ``WalletSecrets``.
enum CustodialKeys {
    /// The key pair of `account` when the hub made it (a custodial wallet or sensor), nil for an
    /// external one or an account it does not know (``WalletSecrets/keyPair(sealed:publicKey:address:)``).
    static func keyPair(_ account: [UInt8], secrets: WalletSecrets, ss58Prefix: UInt16, on connection: any SQLConnection) throws
        -> Sr25519.KeyPair?
    {
        let sealed =
            try connection.queryFirst("SELECT sealed_secret FROM substrate_wallets WHERE public_key = \(account) AND kind = 'custodial'")?
            .optionalBytes("sealed_secret")
            ?? connection.queryFirst("SELECT sealed_secret FROM substrate_sensors WHERE public_key = \(account) AND kind = 'custodial'")?
            .optionalBytes("sealed_secret")
        guard let sealed else { return nil }
        return try secrets.keyPair(sealed: sealed, publicKey: account, address: try SS58.encode(account, prefix: ss58Prefix))
    }
}
