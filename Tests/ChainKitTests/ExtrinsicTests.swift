import ChainKit
import Foundation
import Testing

@Suite("Signed extrinsics v4 from metadata")
struct ExtrinsicTests {
    @Test("extrinsics.json holds only kinds this suite checks")
    func coversEveryKind() throws {
        #expect(try SubstrateVector.kinds(in: "extrinsics") == ["signed_extrinsic"])
        #expect(try !SubstrateVector.names(in: "extrinsics", kind: "signed_extrinsic").isEmpty)
    }

    /// The vector's metadata, call and extension values, rebuilt through the public API.
    private struct Case {
        let vector: SubstrateVector
        let metadata: RuntimeMetadata
        let call: RuntimeCall
        let values: SignedExtensionValues
        let payload: SigningPayload

        init(_ name: String) throws {
            vector = try SubstrateVector(file: "extrinsics", named: name)
            let fixture = try MetadataFixture(file: try vector.string("metadata_file"))
            metadata = try fixture.metadata
            #expect(Int(metadata.version) == (try vector.int("metadata_version")))
            let pallet = try vector.string("pallet")
            let callName = try vector.string("call")
            let callData = try vector.bytes("call_data")
            #expect(metadata.callIndex(pallet: pallet, call: callName)?.bytes == (try vector.bytes("call_index")))
            call = try RuntimeCall(pallet: pallet, call: callName, arguments: Array(callData.dropFirst(2)), metadata: metadata)
            #expect(call.encoded == callData)

            // The same call from typed values, encoded by the metadata's argument types.
            let arguments = try #require(vector["call_args"] as? [String: String])
            let values: [SCALEValue]
            if let dest = arguments["dest"], let value = arguments["value"] {
                values = [
                    .variant(name: "Id", fields: [SCALEField(.bytes(try Hex.decode(dest)))]),
                    .unsigned(try #require(UInt128(value))),
                ]
            } else {
                values = [.bytes(try Hex.decode(try #require(arguments["remark"])))]
            }
            #expect(try RuntimeCall(pallet: pallet, call: callName, values: values, metadata: metadata) == call)

            let eraFields = try #require(vector["era"] as? [String: Any])
            let era: Era
            if eraFields["immortal"] as? Bool == true {
                era = .immortal
            } else {
                let requested = try #require(eraFields["requested_period"] as? Int)
                let current = try #require(eraFields["current_block"] as? Int)
                era = .mortal(period: UInt64(requested), currentBlock: UInt64(current))
                #expect(era.period == (eraFields["period"] as? Int).map(UInt64.init))
                #expect(era.phase == (eraFields["phase"] as? Int).map(UInt64.init))
                #expect(era.birth(currentBlock: UInt64(current)) == (eraFields["birth_block"] as? Int).map(UInt64.init))
            }
            #expect(era.scaleEncoded == (try vector.bytes("era_encoded")))
            self.values = SignedExtensionValues(
                era: era,
                eraBlockHash: era.isImmortal ? nil : try vector.bytes("era_block_hash"),
                nonce: try #require(UInt64(try vector.string("nonce"))),
                tip: try #require(UInt128(try vector.string("tip"))),
                specVersion: UInt32(try vector.int("spec_version")),
                transactionVersion: UInt32(try vector.int("transaction_version")),
                genesisHash: try vector.bytes("genesis_hash"),
                metadataHash: vector.isNull("metadata_hash") ? nil : try vector.bytes("metadata_hash")
            )
            if era.isImmortal {
                #expect(try vector.bytes("era_block_hash") == (try vector.bytes("genesis_hash")))
            }
            payload = try SigningPayload(metadata: metadata, call: call, values: self.values)
        }

        /// The extrinsic's bytes before the 64 signature bytes, and after them.
        func splitAtSignature(_ bytes: [UInt8]) throws -> (head: ArraySlice<UInt8>, tail: ArraySlice<UInt8>) {
            let tailLength = payload.extra.count + call.encoded.count
            try #require(bytes.count > tailLength + 64)
            return (bytes.dropLast(tailLength + 64), bytes.suffix(tailLength))
        }
    }

    @Test("signing payloads follow the metadata's extensions byte for byte", arguments: try SubstrateVector.names(in: "extrinsics"))
    func signingPayload(name: String) throws {
        let test = try Case(name)
        let vector = test.vector
        let payload = test.payload
        #expect(test.metadata.extrinsic.signedExtensions.map(\.identifier) == (try vector.strings("signed_extensions")))
        let parts = try #require(vector["extension_parts"] as? [[String: String]])
        #expect(payload.extensions.map(\.identifier) == parts.compactMap { $0["identifier"] })
        #expect(payload.extensions.map { Hex.encode($0.extra) } == parts.compactMap { $0["extra"] })
        #expect(payload.extensions.map { Hex.encode($0.additionalSigned) } == parts.compactMap { $0["additional_signed"] })
        #expect(payload.extra == (try vector.bytes("extra")))
        #expect(payload.additionalSigned == (try vector.bytes("additional_signed")))
        #expect(payload.bytes == (try vector.bytes("signing_payload")))
        #expect(payload.bytes.count == (try vector.int("payload_length")))
        #expect((payload.bytes.count > 256) == (try vector.bool("payload_hashed")))
        #expect(payload.message == (try vector.bytes("signed_message")))
    }

    @Test("payloads over 256 bytes are signed through their blake2b-256", arguments: try SubstrateVector.names(in: "extrinsics"))
    func hashedPayload(name: String) throws {
        let test = try Case(name)
        if try test.vector.bool("payload_hashed") {
            #expect(test.payload.bytes.count > SigningPayload.maximumUnhashedLength)
            #expect(test.payload.message == blake2b256(test.payload.bytes))
        } else {
            #expect(test.payload.bytes.count <= SigningPayload.maximumUnhashedLength)
            #expect(test.payload.message == test.payload.bytes)
        }
    }

    @Test(
        "ed25519 extrinsics are byte-exact",
        arguments: try SubstrateVector.names(in: "extrinsics").filter { $0.contains("ed25519") }
    )
    func ed25519Extrinsic(name: String) throws {
        let test = try Case(name)
        let vector = test.vector
        try #require(try vector.string("signature_scheme") == "ed25519")
        let signer = try #require(vector["signer"] as? [String: String])
        let keyPair = try Ed25519.keyPair(seed: try Hex.decode(try #require(signer["seed"])))
        #expect(keyPair.publicKey == (try Hex.decode(try #require(signer["public_key"]))))
        #expect(signer["scheme"] == "ed25519")

        let extrinsic = try SignedExtrinsic(metadata: test.metadata, call: test.call, signer: .ed25519(keyPair), values: test.values)
        #expect(extrinsic.signature.scheme == .ed25519)
        #expect(extrinsic.signature.bytes == (try vector.bytes("signature")))
        #expect(extrinsic.signer == keyPair.publicKey)
        #expect(extrinsic.bytes == (try vector.bytes("extrinsic")))
        #expect(extrinsic.hash == (try vector.bytes("extrinsic_hash")))
        #expect(Ed25519.verify(extrinsic.signature.bytes, message: try vector.bytes("signed_message"), publicKey: keyPair.publicKey))
    }

    @Test(
        "sr25519 extrinsics match up to the signature, and the signatures verify",
        arguments: try SubstrateVector.names(in: "extrinsics").filter { $0.contains("sr25519") }
    )
    func sr25519Extrinsic(name: String) throws {
        let test = try Case(name)
        let vector = test.vector
        try #require(try vector.string("signature_scheme") == "sr25519")
        let signer = try #require(vector["signer"] as? [String: String])
        #expect(signer["scheme"] == "sr25519")
        let keyPair = Sr25519.KeyPair(
            publicKey: try Hex.decode(try #require(signer["public_key"])),
            secretKey: try Hex.decode(try #require(signer["secret_key"]))
        )
        let expected = try vector.bytes("extrinsic")

        // Our own (randomized) signature: the layout around it is the oracle's, and it verifies.
        let ours = try SignedExtrinsic(metadata: test.metadata, call: test.call, signer: .sr25519(keyPair), values: test.values)
        let (oursHead, oursTail) = try test.splitAtSignature(ours.bytes)
        let (expectedHead, expectedTail) = try test.splitAtSignature(expected)
        #expect(oursHead == expectedHead)
        #expect(oursTail == expectedTail)
        #expect(ours.bytes.count == expected.count)
        #expect(ours.signature.scheme == .sr25519)
        #expect(Sr25519.verify(ours.signature.bytes, message: test.payload.message, publicKey: keyPair.publicKey))

        // The oracle's signature verifies over our message, and assembling with it gives the oracle's bytes exactly.
        let signature = try MultiSignature(scheme: .sr25519, bytes: try vector.bytes("signature"))
        #expect(Sr25519.verify(signature.bytes, message: test.payload.message, publicKey: keyPair.publicKey))
        let theirs = try SignedExtrinsic(payload: test.payload, signer: keyPair.publicKey, signature: signature)
        #expect(theirs.bytes == expected)
        #expect(theirs.hash == (try vector.bytes("extrinsic_hash")))
    }

    // MARK: Metadata-driven order and refusals (hand-assembled metadata)

    private static let genesis = [UInt8](repeating: 0x11, count: 32)
    private static let blockHash = [UInt8](repeating: 0x22, count: 32)
    private static let bob = [UInt8](repeating: 0xB0, count: 32)

    private func values(nonce: UInt64 = 5, era: Era = .mortal(period: 64, currentBlock: 1000)) -> SignedExtensionValues {
        SignedExtensionValues(
            era: era,
            eraBlockHash: Self.blockHash,
            nonce: nonce,
            tip: 7,
            specVersion: 0x0102_0304,
            transactionVersion: 9,
            genesisHash: Self.genesis
        )
    }

    private func transfer(_ metadata: RuntimeMetadata) throws -> RuntimeCall {
        try RuntimeCall(
            pallet: "Balances",
            call: "transfer_keep_alive",
            values: [.variant(name: "Id", fields: [SCALEField(.bytes(Self.bob))]), .unsigned(12_345)],
            metadata: metadata
        )
    }

    @Test("extra and additional data follow the metadata's order, whatever it is")
    func unusualOrder() throws {
        var tiny = TinyMetadata()
        tiny.extensions = [
            ("CheckNonce", TinyMetadata.checkNonce, TinyMetadata.emptyTuple),
            ("CheckGenesis", TinyMetadata.unitStruct, TinyMetadata.h256),
            ("ChargeTransactionPayment", TinyMetadata.chargeTransactionPayment, TinyMetadata.emptyTuple),
            ("CheckTxVersion", TinyMetadata.unitStruct, TinyMetadata.u32),
            ("CheckMortality", TinyMetadata.checkMortality, TinyMetadata.h256),
            ("CheckSpecVersion", TinyMetadata.unitStruct, TinyMetadata.u32),
        ]
        let metadata = try tiny.metadata
        let call = try transfer(metadata)
        #expect(call.encoded == [4, 3, 0] + Self.bob + [0xE5, 0xC0])
        let payload = try SigningPayload(metadata: metadata, call: call, values: values())
        #expect(payload.extra == [0x14] + [0x1C] + [0x85, 0x02])  // nonce 5, tip 7, era 64@1000
        #expect(payload.additionalSigned == Self.genesis + [9, 0, 0, 0] + Self.blockHash + [4, 3, 2, 1])
        #expect(payload.bytes == call.encoded + payload.extra + payload.additionalSigned)

        // The same extensions in the fixtures' order give a different payload: the order is not hard-coded.
        let standard = try SigningPayload(metadata: try TinyMetadata().metadata, call: call, values: values())
        #expect(standard.extra == [0x85, 0x02, 0x14, 0x1C])
        #expect(standard.additionalSigned == [4, 3, 2, 1, 9, 0, 0, 0] + Self.genesis + Self.blockHash)
    }

    @Test("an unknown signed extension with data is refused, naming it")
    func unknownExtension() throws {
        for (extra, additional) in [(TinyMetadata.checkHubd, TinyMetadata.emptyTuple), (TinyMetadata.unitStruct, TinyMetadata.u32)] {
            var tiny = TinyMetadata()
            tiny.extensions.insert(("CheckHubd", extra, additional), at: 2)
            let metadata = try tiny.metadata
            let call = try transfer(metadata)
            do {
                _ = try SigningPayload(metadata: metadata, call: call, values: values())
                Issue.record("an unknown extension with data was skipped")
            } catch let error as ChainKitError {
                #expect(error.code == .invalidTransaction)
                #expect(error.message.contains("CheckHubd"))
            }

            // Supplying its bytes makes it part of the payload, in its place.
            var withCustom = values()
            withCustom.custom["CheckHubd"] = .init(
                extra: extra == TinyMetadata.checkHubd ? [1, 2, 3, 4] : [],
                additionalSigned: additional == TinyMetadata.u32 ? [5, 6, 7, 8] : []
            )
            let payload = try SigningPayload(metadata: metadata, call: call, values: withCustom)
            #expect(payload.extensions.map(\.identifier)[2] == "CheckHubd")
            #expect(payload.extensions[2].extra == withCustom.custom["CheckHubd"]?.extra)
            #expect(payload.extensions[2].additionalSigned == withCustom.custom["CheckHubd"]?.additionalSigned)

            // Custom bytes of the wrong shape are refused too.
            withCustom.custom["CheckHubd"] = .init(extra: [1], additionalSigned: [1])
            #expect(throws: ChainKitError(.invalidTransaction, "")) {
                try SigningPayload(metadata: metadata, call: call, values: withCustom)
            }
        }
    }

    @Test("unknown extensions whose types are empty contribute nothing")
    func unknownEmptyExtension() throws {
        var tiny = TinyMetadata()
        tiny.extensions.insert(("CheckHubdMarker", TinyMetadata.unitStruct, TinyMetadata.emptyTuple), at: 0)
        let metadata = try tiny.metadata
        let call = try transfer(metadata)
        let payload = try SigningPayload(metadata: metadata, call: call, values: values())
        let standard = try SigningPayload(metadata: try TinyMetadata().metadata, call: call, values: values())
        #expect(payload.bytes == standard.bytes)
        #expect(payload.extensions.first?.identifier == "CheckHubdMarker")
        // The V15 fixtures' AuthorizeCall and WeightReclaim are of this kind.
        let rococo = try MetadataFixture.rococoV15.metadata
        let rococoPayload = try SigningPayload(
            metadata: rococo,
            call: RuntimeCall(index: CallIndex(pallet: 0, call: 0), arguments: [0]),
            values: values()
        )
        #expect(
            rococoPayload.extensions.filter { $0.extra.isEmpty && $0.additionalSigned.isEmpty }.map(\.identifier) == [
                "AuthorizeCall", "CheckNonZeroSender", "CheckWeight", "WeightReclaim",
            ]
        )
    }

    @Test("values that do not fit the metadata's types are refused")
    func misfits() throws {
        let metadata = try TinyMetadata().metadata
        let call = try transfer(metadata)
        // CheckNonce is Compact<u32> here.
        #expect(throws: ChainKitError(.invalidTransaction, "")) {
            try SigningPayload(metadata: metadata, call: call, values: values(nonce: 1 << 32))
        }
        #expect(throws: Never.self) { try SigningPayload(metadata: metadata, call: call, values: values(nonce: 1 << 32 - 1)) }
        var noBlockHash = values()
        noBlockHash.eraBlockHash = nil
        #expect(throws: ChainKitError(.invalidTransaction, "")) { try SigningPayload(metadata: metadata, call: call, values: noBlockHash) }
        noBlockHash.era = .immortal
        #expect(throws: Never.self) { try SigningPayload(metadata: metadata, call: call, values: noBlockHash) }
        var shortGenesis = values()
        shortGenesis.genesisHash = [1, 2, 3]
        #expect(throws: ChainKitError(.invalidTransaction, "")) { try SigningPayload(metadata: metadata, call: call, values: shortGenesis) }
        var metadataHash = values()
        metadataHash.metadataHash = [UInt8](repeating: 1, count: 32)
        #expect(throws: Never.self, "no CheckMetadataHash in this runtime: the hash is unused") {
            try SigningPayload(metadata: metadata, call: call, values: metadataHash)
        }

        // A known extension whose type in this runtime is not what the spec says.
        var odd = TinyMetadata()
        odd.extensions[4] = ("CheckNonce", TinyMetadata.unitStruct, TinyMetadata.emptyTuple)
        let oddMetadata = try odd.metadata
        do {
            _ = try SigningPayload(metadata: oddMetadata, call: call, values: values())
            Issue.record("a CheckNonce without a nonce type was accepted")
        } catch let error as ChainKitError {
            #expect(error.code == .invalidTransaction)
            #expect(error.message.contains("CheckNonce"))
        }
    }

    @Test("CheckMetadataHash writes its mode and the optional hash")
    func metadataHash() throws {
        let rococo = try MetadataFixture.rococoV15.metadata
        let call = RuntimeCall(index: CallIndex(pallet: 0, call: 0), arguments: [0])
        var values = values()
        let disabled = try SigningPayload(metadata: rococo, call: call, values: values)
        let hash = [UInt8](repeating: 0xAB, count: 32)
        values.metadataHash = hash
        let enabled = try SigningPayload(metadata: rococo, call: call, values: values)
        let part = { (payload: SigningPayload) in payload.extensions.first { $0.identifier == "CheckMetadataHash" } }
        #expect(part(disabled)?.extra == [0])
        #expect(part(disabled)?.additionalSigned == [0])
        #expect(part(enabled)?.extra == [1])
        #expect(part(enabled)?.additionalSigned == [1] + hash)
        values.metadataHash = [1]
        #expect(throws: ChainKitError(.invalidTransaction, "")) { try SigningPayload(metadata: rococo, call: call, values: values) }
    }

    @Test("extrinsic versions other than 4 are refused")
    func otherVersion() throws {
        var tiny = TinyMetadata()
        tiny.extrinsicVersion = 5
        let metadata = try tiny.metadata
        #expect(throws: ChainKitError(.invalidTransaction, "")) {
            try SigningPayload(metadata: metadata, call: try transfer(metadata), values: values())
        }
    }

    @Test("the signature's enum index and the address form come from the metadata")
    func signatureIndex() throws {
        var tiny = TinyMetadata()
        // A runtime whose MultiSignature lists Sr25519 at index 7 and has no Ed25519 variant.
        tiny.types[Int(TinyMetadata.multiSignature)] = .init(
            path: ["sp_runtime", "MultiSignature"],
            definition: .variant([("Sr25519", 7, [(nil, TinyMetadata.bytes64)])])
        )
        // And whose address is a plain AccountId32.
        tiny.types[Int(TinyMetadata.uncheckedExtrinsic)].parameters[0] = ("Address", TinyMetadata.accountID)
        let metadata = try tiny.metadata
        let payload = try SigningPayload(metadata: metadata, call: try transfer(metadata), values: values())
        let signature = try MultiSignature(scheme: .sr25519, bytes: [UInt8](repeating: 0x5A, count: 64))
        let account = [UInt8](repeating: 0xA1, count: 32)
        let extrinsic = try SignedExtrinsic(payload: payload, signer: account, signature: signature)
        var body: [UInt8] = [0x84] + account + [7] + signature.bytes + payload.extra + payload.call.encoded
        body.insert(contentsOf: SCALECompact(UInt64(body.count)).scaleEncoded, at: 0)
        #expect(extrinsic.bytes == body)
        let ed = try MultiSignature(scheme: .ed25519, bytes: [UInt8](repeating: 0x5A, count: 64))
        #expect(throws: ChainKitError(.invalidTransaction, "")) { try SignedExtrinsic(payload: payload, signer: account, signature: ed) }
        #expect(throws: ChainKitError(.invalidTransaction, "")) { try SignedExtrinsic(payload: payload, signer: [1, 2], signature: signature) }
        #expect(throws: ChainKitError(.invalidSignature, "")) { try MultiSignature(scheme: .sr25519, bytes: [UInt8](repeating: 0, count: 63)) }
    }

    // MARK: Calls

    @Test("calls with arguments of the wrong shape, or unknown calls, are refused")
    func badCalls() throws {
        let agung = try MetadataFixture.peaqAgungV14.metadata
        let good = [0] + Self.bob + [0xE5, 0xC0]
        #expect(throws: Never.self) { try RuntimeCall(pallet: "Balances", call: "transfer_keep_alive", arguments: good, metadata: agung) }
        for bad in [Array(good.dropLast()), good + [0], [9] + Array(good.dropFirst()), []] {
            #expect(throws: ChainKitError(.invalidTransaction, "")) {
                try RuntimeCall(pallet: "Balances", call: "transfer_keep_alive", arguments: bad, metadata: agung)
            }
        }
        #expect(throws: ChainKitError(.invalidTransaction, "")) { try RuntimeCall(pallet: "Nope", call: "transfer", arguments: [], metadata: agung) }
        #expect(throws: ChainKitError(.invalidTransaction, "")) {
            try RuntimeCall(pallet: "Balances", call: "transfer_allow_death", arguments: good, metadata: agung)
        }
        #expect(throws: ChainKitError(.invalidTransaction, "")) {
            try RuntimeCall(pallet: "Balances", call: "transfer", values: [.unsigned(1)], metadata: agung)
        }
        #expect(throws: ChainKitError(.invalidSCALE, "")) {
            try RuntimeCall(pallet: "Balances", call: "transfer", values: [.unsigned(1), .unsigned(1)], metadata: agung)
        }
        #expect(throws: ChainKitError(.outOfRange, "")) {
            try RuntimeCall(pallet: "System", call: "set_heap_pages", values: [.unsigned(UInt128(UInt64.max) + 1)], metadata: agung)
        }
    }
}
