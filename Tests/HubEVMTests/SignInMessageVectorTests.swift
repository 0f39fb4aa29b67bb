import ChainKit
import Foundation
import HubKernel
import Testing

@testable import HubEVM

/// `Tests/Fixtures/siwe/vectors.json`, made by `tools/evm/siwe/make_vectors.py`: messages composed
/// by PyPI's `signinwithethereum` and signed by eth-account. The hub must read every field as that
/// library does and accept the signatures.
@Suite("Sign-In with Ethereum vectors")
struct SignInMessageVectorTests {
    static func vectors() throws -> [[String: Any]] {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/siwe/vectors.json")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
        try #require(list.count >= 3)
        return list
    }

    @Test("messages made by signinwithethereum parse to the fields it reads")
    func parsesLibraryMessages() throws {
        for vector in try Self.vectors() {
            let text = try #require(vector["message"] as? String)
            let fields = try #require(vector["fields"] as? [String: Any])
            let message = try SignInMessage.parse(text)
            #expect(message.accountKind == "Ethereum")
            #expect(message.address == vector["address"] as? String)
            #expect(message.domain == fields["domain"] as? String)
            #expect(message.scheme == fields["scheme"] as? String)
            #expect(message.statement == fields["statement"] as? String)
            #expect(message.uri == fields["uri"] as? String)
            #expect(message.chainID == (fields["chain_id"] as? Int).map(String.init))
            #expect(message.nonce == fields["nonce"] as? String)
            #expect(message.requestID == fields["request_id"] as? String)
            #expect(message.resources == fields["resources"] as? [String])
            let issued = try #require(fields["issued_at"] as? String)
            #expect(message.issuedAt == LedgerTimestamp(rfc3339: issued))
            #expect(message.expirationTime == (fields["expiration_time"] as? String).flatMap { LedgerTimestamp(rfc3339: $0) })
            #expect(message.notBefore == (fields["not_before"] as? String).flatMap { LedgerTimestamp(rfc3339: $0) })
        }
    }

    @Test("their personal_sign signatures verify, and fail for another address or an altered message")
    func verifiesLibrarySignatures() throws {
        let scheme = EthereumSignIn(chainID: 1)
        for vector in try Self.vectors() {
            let text = try #require(vector["message"] as? String)
            let address = try scheme.normalise(address: try #require(vector["address"] as? String))
            let signatureText = try #require(vector["signature"] as? String)
            let signature = try #require(HexText.decode(signatureText))
            #expect(try scheme.verify(message: Array(text.utf8), signature: signature, address: address))
            #expect(try !scheme.verify(message: Array((text + " ").utf8), signature: signature, address: address))
            let other = try EthereumAddress(publicKey: Secp256k1.publicKey(privateKey: [UInt8](repeating: 7, count: 32))).checksummed
            #expect(try !scheme.verify(message: Array(text.utf8), signature: signature, address: other))
        }
    }

    @Test("a message the hub writes reads back field for field")
    func roundTrip() throws {
        let issued = try #require(LedgerTimestamp(rfc3339: "2026-11-27T10:00:00.000Z"))
        for statement in [nil, "Sign in to the hub."] {
            let message = SignInMessage(
                domain: "pay.example.org",
                accountKind: "Ethereum",
                address: "0x5d5c99EdF529335160FF180fA141Dd4967fc00D2",
                statement: statement,
                uri: "https://pay.example.org",
                chainID: "1370000",
                nonce: "9f86d081884c7d659a2feaa0c55ad015",
                issuedAt: issued,
                expirationTime: issued
            )
            #expect(try SignInMessage.parse(message.text) == message)
        }
    }

    @Test(
        "malformed messages are refused with the line at fault",
        arguments: [
            "",
            "localhost wants you to sign in:\n0xabc",
            "localhost wants you to sign in with your Ethereum account:\n0x5d5c99EdF529335160FF180fA141Dd4967fc00D2\nURI: http://localhost",
            "localhost wants you to sign in with your Ethereum account:\n0x5d5c99EdF529335160FF180fA141Dd4967fc00D2\n\n\nURI: http://localhost\nVersion: 2\nChain ID: 1\nNonce: 12345678\nIssued At: 2026-11-27T10:00:00Z",
            "localhost wants you to sign in with your Ethereum account:\n0x5d5c99EdF529335160FF180fA141Dd4967fc00D2\n\n\nURI: http://localhost\nVersion: 1\nChain ID: 1\nNonce: short\nIssued At: 2026-11-27T10:00:00Z",
            "localhost wants you to sign in with your Ethereum account:\n0x5d5c99EdF529335160FF180fA141Dd4967fc00D2\n\n\nURI: http://localhost\nVersion: 1\nChain ID: 1\nNonce: 12345678\nIssued At: yesterday",
            "localhost wants you to sign in with your Ethereum account:\n0x5d5c99EdF529335160FF180fA141Dd4967fc00D2\n\n\nURI: http://localhost\nVersion: 1\nChain ID: 1\nNonce: 12345678\nIssued At: 2026-11-27T10:00:00Z\nSurprise: field",
        ]
    )
    func refusesMalformed(text: String) {
        #expect(throws: SignInMessage.FormatError.self) { try SignInMessage.parse(text) }
    }
}
