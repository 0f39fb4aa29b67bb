import ChainKit
import Testing

@Suite("secp256k1, addresses and Ethereum transactions against the golden vectors")
struct Secp256k1Tests {
    @Test("public keys, compressed keys and EIP-55 addresses")
    func publicKeys() throws {
        for vector in try VectorFile("secp256k1").of(kind: "public_key") {
            let privateKey = try Hex.decode(vector.string("private_key"))
            let publicKey = try Secp256k1.publicKey(privateKey: privateKey)
            #expect(Hex.encode(publicKey) == (try vector.string("public_key")), "\(vector.name)")
            #expect(Hex.encode(try Secp256k1.compress(publicKey: publicKey)) == (try vector.string("public_key_compressed")))
            let address = try EthereumAddress(publicKey: publicKey)
            #expect(address.description == (try vector.string("address")))
            #expect(address.checksummed == (try vector.string("address_checksummed")))
            #expect(try EthereumAddress(vector.string("address_checksummed")) == address)
        }
    }

    @Test("deterministic signatures match byte for byte, recover and verify")
    func signatures() throws {
        var recoveryIDs = Set<UInt8>()
        for vector in try VectorFile("secp256k1").of(kind: "signature") {
            let privateKey = try Hex.decode(vector.string("private_key"))
            let hash = try Hex.decode(vector.string("message_hash"))
            let signature = try Secp256k1.sign(hash: hash, privateKey: privateKey)
            #expect(Hex.encode(signature.r) == (try vector.string("r")), "\(vector.name)")
            #expect(Hex.encode(signature.s) == (try vector.string("s")), "\(vector.name)")
            #expect(Int(signature.recoveryID) == vector["recid"] as? Int, "\(vector.name)")
            #expect(signature.isLowS)
            recoveryIDs.insert(signature.recoveryID)
            let publicKey = try Secp256k1.recover(hash: hash, signature: signature)
            #expect(Hex.encode(publicKey) == (try vector.string("public_key")))
            #expect(try Secp256k1.verify(hash: hash, r: signature.r, s: signature.s, publicKey: publicKey))
            var tampered = hash
            tampered[0] ^= 1
            #expect(try !Secp256k1.verify(hash: tampered, r: signature.r, s: signature.s, publicKey: publicKey))
        }
        #expect(recoveryIDs == [0, 1], "the vectors should cover both recovery ids")
    }

    @Test("a high-s twin is refused where low-s is required and recovers the same key where it is not")
    func highS() throws {
        let vector = try #require(try VectorFile("secp256k1").of(kind: "high_s").first)
        let hash = try Hex.decode(vector.string("message_hash"))
        let r = try Hex.decode(vector.string("r"))
        let s = try Hex.decode(vector.string("s"))
        let recid = UInt8(try #require(vector["recid"] as? Int))
        let signature = Secp256k1.Signature(r: r, s: s, recoveryID: recid)
        #expect(!signature.isLowS)
        #expect(throws: ChainKitError(.invalidSignature, "")) { try Secp256k1.recover(hash: hash, signature: signature) }
        let lenient = try Secp256k1.recover(hash: hash, signature: signature, requireLowS: false)
        #expect(Hex.encode(lenient) == (try vector.string("public_key")))
        #expect(try !Secp256k1.verify(hash: hash, r: r, s: s, publicKey: lenient))
    }

    @Test("bad keys and addresses get typed errors")
    func badInput() throws {
        #expect(throws: ChainKitError(.invalidKey, "")) { try Secp256k1.publicKey(privateKey: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: ChainKitError(.invalidKey, "")) { try Secp256k1.publicKey(privateKey: [UInt8](repeating: 0xFF, count: 32)) }
        #expect(throws: ChainKitError(.invalidKey, "")) { try Secp256k1.publicKey(privateKey: [1, 2, 3]) }
        #expect(throws: ChainKitError(.invalidKey, "")) { try Secp256k1.compress(publicKey: [UInt8](repeating: 7, count: 64)) }
        #expect(throws: ChainKitError(.invalidAddress, "")) { try EthereumAddress("0x7E5F4552091A69125d5DfCb7b8C2659029395BdF") }
        #expect(throws: ChainKitError(.invalidAddress, "")) { try EthereumAddress("0x1234") }
        #expect(try EthereumAddress("0x7E5F4552091A69125D5DFCB7B8C2659029395BDF").description == "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf")
    }

    func transaction(_ vector: [String: Any]) throws -> EthereumTransaction {
        let type = try #require(vector["type"] as? Int)
        let envelope = try #require(EthereumTransaction.Envelope(rawValue: UInt8(type)))
        let chainID = try (vector["chain_id"] as? String).map { try UInt64(UInt256(decimal: $0).low) }
        let toText = try vector.string("to")
        var transaction = EthereumTransaction(
            envelope: envelope,
            chainID: chainID,
            nonce: UInt64(try UInt256(decimal: vector.string("nonce")).low),
            gasLimit: UInt64(try UInt256(decimal: vector.string("gas")).low),
            to: toText == "0x" ? nil : try EthereumAddress(toText),
            value: try UInt256(decimal: vector.string("value")),
            data: try Hex.decode(vector.string("data"))
        )
        if let gasPrice = vector["gas_price"] as? String { transaction.gasPrice = try UInt256(decimal: gasPrice) }
        if let fee = vector["max_fee_per_gas"] as? String { transaction.maxFeePerGas = try UInt256(decimal: fee) }
        if let tip = vector["max_priority_fee_per_gas"] as? String { transaction.maxPriorityFeePerGas = try UInt256(decimal: tip) }
        if let list = vector["access_list"] as? [[String: Any]] {
            transaction.accessList = try list.map { entry in
                AccessListEntry(
                    address: try EthereumAddress(entry.string("address")),
                    storageKeys: try (entry["storage_keys"] as? [String] ?? []).map { try Hex.decode($0, length: 32) }
                )
            }
        }
        return transaction
    }

    @Test("every transaction vector: signing payload, hash, raw bytes, sender; decode round-trips")
    func transactions() throws {
        let vectors = try VectorFile("eth_transactions").vectors
        #expect(vectors.count >= 20)
        for vector in vectors {
            let unsigned = try transaction(vector)
            #expect(Hex.encode(unsigned.signingPayload) == (try vector.string("signing_payload")), "\(vector.name)")
            #expect(Hex.encode(unsigned.signingHash) == (try vector.string("signing_hash")), "\(vector.name)")
            let raw = try Hex.decode(vector.string("raw"))
            if unsigned.chainID != nil {
                let signed = try unsigned.signed(privateKey: Hex.decode(vector.string("private_key")))
                #expect(signed.raw == raw, "\(vector.name)")
                #expect(Hex.encode(signed.hash) == (try vector.string("hash")), "\(vector.name)")
                #expect(signed.v.description == (try vector.string("v")), "\(vector.name)")
            } else {
                // Pre-EIP-155: decoded and recovered, never produced.
                #expect(throws: ChainKitError(.invalidTransaction, "")) { try unsigned.signed(privateKey: Hex.decode(vector.string("private_key"))) }
            }
            let decoded = try SignedEthereumTransaction.decode(raw)
            #expect(decoded.transaction == unsigned, "\(vector.name)")
            #expect(decoded.raw == raw, "\(vector.name)")
            #expect(try decoded.sender().description == (try vector.string("sender")), "\(vector.name)")
        }
    }

    @Test(
        "malformed raw transactions are refused with a typed error",
        arguments: ["0x", "0x03c0", "0x01c0", "0xc0", "0xf8", "0x02c9808080808080808080", "0xc9808080808080808080"]
    )
    func malformedTransactions(text: String) throws {
        let bytes = try Hex.decode(text)
        #expect(throws: ChainKitError.self) { try SignedEthereumTransaction.decode(bytes) }
    }

    @Test("a transaction whose signature was altered recovers another sender or none")
    func tamperedSignature() throws {
        let vector = try #require(try VectorFile("eth_transactions").vectors.first)
        var decoded = try SignedEthereumTransaction.decode(Hex.decode(vector.string("raw")))
        decoded.signature.recoveryID ^= 1
        let sender = try? decoded.sender().description
        #expect(sender != (try vector.string("sender")))
    }
}
