import CSodium
import Foundation
public import HubKernel

/// A test double for a rail's wallet scheme: plain ed25519 (libsodium), addresses the hex public
/// key. Real rails register sr25519 and EIP-191 verifiers from ChainKit; this proves the kernel's
/// path with a real signature all the same.
public struct TestEd25519Scheme: WalletSignatureVerifier {
    public init() {}
    public let scheme = "test-ed25519"

    public struct BadAddress: Error {}

    public func normalise(address: String) throws -> String {
        let lower = address.lowercased()
        guard lower.count == 64, lower.allSatisfy(\.isHexDigit) else { throw BadAddress() }
        return lower
    }

    public func verify(message: [UInt8], signature: [UInt8], address: String) throws -> Bool {
        guard signature.count == Int(crypto_sign_bytes()), let key = TestWallet.bytes(hex: address) else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), key) == 0
    }
}

/// An ed25519 key pair that signs challenges as a wallet would.
public struct TestWallet: Sendable {
    public let publicKey: [UInt8]
    public let secretKey: [UInt8]

    public init() {
        _ = sodium_init()
        var pk = [UInt8](repeating: 0, count: Int(crypto_sign_publickeybytes()))
        var sk = [UInt8](repeating: 0, count: Int(crypto_sign_secretkeybytes()))
        crypto_sign_keypair(&pk, &sk)
        publicKey = pk
        secretKey = sk
    }

    public var address: String { publicKey.map { String(format: "%02x", $0) }.joined() }

    public func sign(_ message: String) -> [UInt8] {
        let bytes = Array(message.utf8)
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_bytes()))
        crypto_sign_detached(&signature, nil, bytes, UInt64(bytes.count), secretKey)
        return signature
    }

    public static func bytes(hex: String) -> [UInt8]? {
        var out: [UInt8] = []
        var iterator = hex.makeIterator()
        while let high = iterator.next() {
            guard let low = iterator.next(), let byte = UInt8(String([high, low]), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }
}
