/// Checks signatures of one wallet scheme. Rails register theirs in the
/// ``WalletSchemeRegistry``: the Substrate rail `sr25519` and `ed25519`, the EVM rail `eip191`
/// (`personal_sign` over secp256k1). The kernel knows no scheme itself.
///
/// ```swift
/// struct PersonalSignVerifier: WalletSignatureVerifier {
///     let scheme = "eip191"
///     func normalise(address: String) throws -> String { try EthereumAddress(address).checksummed }
///     func verify(message: [UInt8], signature: [UInt8], address: String) throws -> Bool {
///         try PersonalSign.recover(message: message, signature: signature) == EthereumAddress(address)
///     }
/// }
/// identity.wallets.schemes.register(PersonalSignVerifier())
/// ```
public protocol WalletSignatureVerifier: Sendable {
    /// The scheme's name as clients send it: lowercase letters, digits and `-`, e.g. `sr25519`.
    var scheme: String { get }

    /// The canonical form of `address` (checksummed hex, SS58 with the hub's prefix, …), so one
    /// wallet always links to one user however the client wrote it.
    /// - Throws: any error for an address that is not one of this scheme; identity reports it
    ///   as `invalid_address`.
    func normalise(address: String) throws -> String

    /// Whether `signature` over `message` was made by the key behind `address` (already
    /// normalised). `message` is the challenge text as UTF-8, exactly as shown to the user; any
    /// wrapping the wallet applies before signing (EIP-191's prefix, polkadot.js's `<Bytes>`)
    /// is the verifier's to reproduce.
    /// - Throws: for a malformed signature; identity reports it, like `false`, as `invalid_signature`.
    func verify(message: [UInt8], signature: [UInt8], address: String) throws -> Bool

    /// How this scheme's sign-in messages name the account and the chain: EIP-4361's header
    /// (`… sign in with your Ethereum account:`) and `Chain ID`. By default the scheme's name and
    /// no chain.
    var signInProfile: WalletSignInProfile { get }
}

extension WalletSignatureVerifier {
    public var signInProfile: WalletSignInProfile { WalletSignInProfile(accountKind: scheme, chainID: nil) }
}

/// What a scheme's sign-in messages (``SignInMessage``) say about the account: `Ethereum` and
/// chain `1` for Sign-In with Ethereum on mainnet.
public struct WalletSignInProfile: Sendable, Hashable {
    /// The word in `… sign in with your <kind> account:`.
    public var accountKind: String
    /// The `Chain ID` line; a client's message must name the same chain.
    public var chainID: String?

    public init(accountKind: String, chainID: String?) {
        self.accountKind = accountKind
        self.chainID = chainID
    }
}
