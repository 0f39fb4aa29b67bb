import ChainKit
import HubKernel

/// Substrate wallet sign-in as kernel wallet schemes: `sr25519` (schnorrkel, context
/// `substrate`, what polkadot.js, Talisman, SubWallet and the peaq app sign with) and `ed25519`.
///
/// - Addresses are SS58 of any network prefix, checksum checked, or `0x` + 64 hex digits of the
///   public key; they are answered in the configured prefix, so one key is one wallet however a
///   client wrote it.
/// - The message is the kernel's EIP-4361/CAIP-122 text, `… sign in with your Substrate account:`
///   with `Chain ID` the configured chain (``SubstrateConfiguration/chain``).
/// - A signature over the message's bytes is accepted as is, or over `<Bytes>` + message +
///   `</Bytes>`, which polkadot.js extensions' `signRaw` signs so that a signed text can never be
///   a transaction.
struct SubstrateSignatureVerifier: WalletSignatureVerifier {
    enum Algorithm: String, Sendable, CaseIterable {
        case sr25519
        case ed25519
    }

    static let accountKind = "Substrate"

    let algorithm: Algorithm
    let ss58Prefix: UInt16
    let chain: String

    var scheme: String { algorithm.rawValue }

    var signInProfile: WalletSignInProfile { WalletSignInProfile(accountKind: Self.accountKind, chainID: chain) }

    func normalise(address: String) throws -> String {
        try SS58.encode(Self.publicKey(address), prefix: ss58Prefix)
    }

    func verify(message: [UInt8], signature: [UInt8], address: String) throws -> Bool {
        let publicKey = try Self.publicKey(address)
        guard signature.count == 64 else { return false }
        return Self.wrappings(of: message).contains { signed in
            switch algorithm {
            case .sr25519: Sr25519.verify(signature, message: signed, publicKey: publicKey)
            case .ed25519: Ed25519.verify(signature, message: signed, publicKey: publicKey)
            }
        }
    }

    /// The bytes a wallet may have signed for `message`: the message itself, or polkadot.js's
    /// `<Bytes>…</Bytes>` wrapping of it.
    static func wrappings(of message: [UInt8]) -> [[UInt8]] {
        [message, Array("<Bytes>".utf8) + message + Array("</Bytes>".utf8)]
    }

    /// The 32-byte public key an address names: SS58 (any prefix, checksum checked, 32-byte
    /// accounts only) or `0x` + 64 hex digits.
    static func publicKey(_ address: String) throws -> [UInt8] {
        let text = address
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            guard text.utf8.count == 66, let key = HexText.decode(text), key.count == 32 else {
                throw SubstrateError.invalidAddress("address", "a hex public key is 0x and 64 hex digits")
            }
            return key
        }
        let account: [UInt8]
        do {
            account = try SS58.decode(text).account
        } catch {
            throw SubstrateError.invalidAddress("address", "\(error)")
        }
        guard account.count == 32 else {
            throw SubstrateError.invalidAddress("address", "a 33-byte ECDSA account cannot sign in with sr25519 or ed25519")
        }
        return account
    }
}
