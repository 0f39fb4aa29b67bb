import ChainKit
import HubKernel

/// Sign-In with Ethereum (EIP-4361) as a kernel wallet scheme, `siwe`: the message is EIP-4361's
/// (``SignInMessage``, `… sign in with your Ethereum account:`, `Chain ID` the rail's default
/// chain), signed with `personal_sign` (EIP-191) by the address's secp256k1 key, as every Ethereum
/// wallet does. A client may compose its own message around the hub's nonce (as SIWE libraries
/// do) and send it with the signature.
struct EthereumSignIn: WalletSignatureVerifier {
    static let schemeName = "siwe"

    let scheme = Self.schemeName
    let chainID: UInt64

    var signInProfile: WalletSignInProfile { WalletSignInProfile(accountKind: "Ethereum", chainID: String(chainID)) }

    /// EIP-55 checksummed; a mixed-case address with a wrong checksum is refused, as wallets do.
    func normalise(address: String) throws -> String { try EthereumAddress(address).checksummed }

    func verify(message: [UInt8], signature: [UInt8], address: String) throws -> Bool {
        guard signature.count == 65 else { return false }
        return try PersonalSign.recover(message, signature: signature) == EthereumAddress(address)
    }
}
