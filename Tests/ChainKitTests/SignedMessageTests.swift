import ChainKit
import Foundation
import Testing

@Suite("EIP-191 personal_sign and EIP-712 against the golden vectors")
struct SignedMessageTests {
    @Test("personal_sign: preimage hash, signature byte for byte, recovery")
    func personalSign() throws {
        for vector in try VectorFile("eip191_eip712").of(kind: "personal_sign") {
            let message = try Hex.decode(vector.string("message"))
            let privateKey = try Hex.decode(vector.string("private_key"))
            #expect(Hex.encode(PersonalSign.hash(message)) == (try vector.string("signing_hash")), "\(vector.name)")
            let signature = try PersonalSign.sign(message, privateKey: privateKey)
            #expect(Hex.encode(signature) == (try vector.string("signature")), "\(vector.name)")
            #expect(try PersonalSign.recover(message, signature: signature).description == (try vector.string("address")))
            // Some wallets return v as 0/1.
            var zeroBased = signature
            zeroBased[64] -= 27
            #expect(try PersonalSign.recover(message, signature: zeroBased).description == (try vector.string("address")))
            // Another message does not recover the signer.
            #expect(try PersonalSign.recover(message + [0], signature: signature).description != (try vector.string("address")))
        }
    }

    @Test("EIP-712: encodeType, type hashes, domain separator, struct hash, digest and signature")
    func typedData() throws {
        for vector in try VectorFile("eip191_eip712").of(kind: "eip712") {
            let json = String(decoding: try JSONSerialization.data(withJSONObject: try #require(vector["typed_data"])), as: UTF8.self)
            let typed = try EIP712(json: json)
            #expect(try typed.encodeType("EIP712Domain") == (try vector.string("domain_encode_type")), "\(vector.name)")
            #expect(try typed.encodeType(typed.primaryType) == (try vector.string("primary_encode_type")), "\(vector.name)")
            #expect(Hex.encode(try typed.typeHash(typed.primaryType)) == (try vector.string("primary_type_hash")), "\(vector.name)")
            #expect(Hex.encode(try typed.domainSeparator) == (try vector.string("domain_separator")), "\(vector.name)")
            #expect(Hex.encode(try typed.structHash) == (try vector.string("struct_hash")), "\(vector.name)")
            let digest = try typed.signingHash
            #expect(Hex.encode(digest) == (try vector.string("signing_hash")), "\(vector.name)")
            let signature = try Secp256k1.sign(hash: digest, privateKey: Hex.decode(vector.string("private_key")))
            let expectedR = try vector.string("r")
            let expectedS = try vector.string("s")
            #expect(Hex.encode(signature.r) == expectedR, "\(vector.name)")
            #expect(Hex.encode(signature.s) == expectedS, "\(vector.name)")
            let full = signature.r + signature.s + [27 + signature.recoveryID]
            #expect(try PersonalSign.recover(hash: digest, signature: full).description == (try vector.string("address")))
        }
    }

    @Test(
        "malformed typed data and signatures are refused",
        arguments: [
            #"{}"#, #"{"types": {}, "primaryType": "Mail", "domain": {}, "message": {}}"#,
            #"{"types": {"EIP712Domain": [], "Mail": [{"name": "to", "type": "address"}]}, "primaryType": "Mail", "domain": {}, "message": {}}"#,
            #"{"types": {"EIP712Domain": [], "Mail": [{"name": "n", "type": "uint8[2]"}]}, "primaryType": "Mail", "domain": {}, "message": {"n": [1]}}"#,
        ]
    )
    func malformedTypedData(json: String) {
        #expect(throws: ChainKitError.self) { _ = try EIP712(json: json).signingHash }
    }

    @Test("signatures of the wrong size or with a bad v are refused")
    func badSignatures() {
        #expect(throws: ChainKitError(.invalidSignature, "")) { try PersonalSign.recover([1], signature: [UInt8](repeating: 1, count: 64)) }
        #expect(throws: ChainKitError(.invalidSignature, "")) { try PersonalSign.recover([1], signature: [UInt8](repeating: 1, count: 64) + [29]) }
    }
}
