import ChainKit
import Foundation
import Testing

@Suite("Runtime metadata V14 and V15")
struct MetadataTests {
    // MARK: Fixtures decode

    @Test("every fixture decodes, consuming every byte", arguments: MetadataFixture.allCases)
    func fixtureDecodes(fixture: MetadataFixture) throws {
        let bytes = try fixture.bytes
        let metadata = try RuntimeMetadata(bytes: bytes)
        #expect(metadata.version == bytes[4])
        // The decoder reached the last byte: one more is refused, one fewer is truncated.
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try RuntimeMetadata(bytes: bytes + [0]) }
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try RuntimeMetadata(bytes: bytes.dropLast()) }
    }

    @Test("metadata.json holds only kinds this suite checks")
    func coversEveryKind() throws {
        #expect(try SubstrateVector.kinds(in: "metadata") == ["metadata"])
    }

    /// Facts read from the V14 fixtures by scalecodec 1.2.12 (tools/vectors/gen_substrate.py), compared field by field.
    @Test("V14 fixtures match the scalecodec oracle", arguments: try SubstrateVector.names(in: "metadata", kind: "metadata"))
    func matchesOracle(name: String) throws {
        let vector = try SubstrateVector(file: "metadata", named: name)
        let fixture = try MetadataFixture(file: try vector.string("file"))
        let metadata = try fixture.metadata
        #expect(try fixture.bytes.count == (try vector.int("byte_length")))
        #expect(Int(metadata.version) == (try vector.int("version")))
        #expect(metadata.types.types.count == (try vector.int("type_count")))
        #expect(Int(metadata.runtimeType.rawValue) == (try vector.int("runtime_type")))
        let version = try metadata.runtimeVersion()
        #expect(version.specName == (try vector.string("spec_name")))
        #expect(Int(version.specVersion) == (try vector.int("spec_version")))
        #expect(Int(version.transactionVersion) == (try vector.int("transaction_version")))
        #expect(Int(metadata.extrinsic.version) == (try vector.int("extrinsic_version")))
        #expect(metadata.extrinsic.type.map { Int($0.rawValue) } == (try vector.int("extrinsic_type")))

        let extensions = try #require(vector["signed_extensions"] as? [[String: Any]])
        #expect(metadata.extrinsic.signedExtensions.map(\.identifier) == extensions.compactMap { $0["identifier"] as? String })
        #expect(metadata.extrinsic.signedExtensions.map { Int($0.type.rawValue) } == extensions.compactMap { $0["type"] as? Int })
        #expect(
            metadata.extrinsic.signedExtensions.map { Int($0.additionalSigned.rawValue) }
                == extensions.compactMap { $0["additional_signed"] as? Int }
        )

        let pallets = try #require(vector["pallets"] as? [[String: Any]])
        try #require(metadata.pallets.count == pallets.count)
        for (pallet, expected) in zip(metadata.pallets, pallets) {
            try checkPallet(pallet, expected, metadata: metadata)
        }
    }

    private func checkPallet(_ pallet: PalletMetadata, _ expected: [String: Any], metadata: RuntimeMetadata) throws {
        #expect(pallet.name == (try expected.string("name")))
        #expect(Int(pallet.index) == expected["index"] as? Int, "\(pallet.name)")
        #expect(pallet.callType.map { Int($0.rawValue) } == expected["call_type"] as? Int, "\(pallet.name)")
        #expect(pallet.eventType.map { Int($0.rawValue) } == expected["event_type"] as? Int, "\(pallet.name)")
        #expect(pallet.errorType.map { Int($0.rawValue) } == expected["error_type"] as? Int, "\(pallet.name)")
        #expect(pallet.docs.isEmpty, "V14 pallets have no docs")

        let calls = try #require(expected["calls"] as? [[Any]])
        var actualCalls: [String] = []
        if let callType = pallet.callType, case .variant(let variants) = try metadata.resolve(callType).definition {
            actualCalls = variants.map { "\($0.name)=\($0.index)" }
            for variant in variants {
                #expect(metadata.callIndex(pallet: pallet.name, call: variant.name) == CallIndex(pallet: pallet.index, call: variant.index))
            }
        }
        #expect(actualCalls == calls.map { "\($0[0])=\($0[1])" }, "\(pallet.name) calls")

        #expect(pallet.storage?.prefix == expected["storage_prefix"] as? String, "\(pallet.name)")
        let storage = try #require(expected["storage"] as? [[String: Any]])
        let entries = pallet.storage?.entries ?? []
        try #require(entries.count == storage.count, "\(pallet.name) storage entries")
        for (entry, item) in zip(entries, storage) {
            #expect(entry.name == item["name"] as? String)
            #expect((entry.modifier == .default ? "Default" : "Optional") == item["modifier"] as? String, "\(entry.name)")
            #expect(Int(entry.valueType.rawValue) == item["value_type"] as? Int, "\(entry.name)")
            switch entry.kind {
            case .plain:
                #expect(item["kind"] as? String == "plain", "\(entry.name)")
            case .map(let hashers, let key, _):
                #expect(item["kind"] as? String == "map", "\(entry.name)")
                #expect(hashers.map(\.rawValue) == item["hashers"] as? [String], "\(entry.name)")
                #expect(Int(key.rawValue) == item["key_type"] as? Int, "\(entry.name)")
            }
            #expect(metadata.storageEntry(pallet: pallet.name, item: entry.name) == entry)
        }

        let constants = try #require(expected["constants"] as? [[Any]])
        #expect(pallet.constants.map { "\($0.name):\($0.type.rawValue)" } == constants.map { "\($0[0]):\($0[1])" }, "\(pallet.name)")
        for constant in pallet.constants {
            // Every constant's bytes decode as its declared type, exactly.
            #expect(throws: Never.self, "\(pallet.name).\(constant.name)") {
                try metadata.decodeConstant(pallet: pallet.name, name: constant.name)
            }
        }
    }

    // MARK: Facts from the fixtures' README

    @Test("pallet names and spec facts match the fixtures' README")
    func readmeFacts() throws {
        let node = try MetadataFixture.substrateNodeV14.metadata
        #expect(
            node.pallets.map(\.name) == [
                "System", "Utility", "Babe", "Timestamp", "Authorship", "Indices", "Balances", "TransactionPayment",
                "ElectionProviderMultiPhase", "Staking", "Session", "Democracy", "Council", "TechnicalCommittee", "Elections",
                "TechnicalMembership", "Grandpa", "Treasury", "Contracts", "Sudo", "ImOnline", "AuthorityDiscovery", "Offences",
                "Historical", "RandomnessCollectiveFlip", "Identity", "Society", "Recovery", "Vesting", "Scheduler", "Proxy",
                "Multisig", "Bounties", "Tips", "Assets", "Mmr", "Lottery", "Gilt", "Uniques", "TransactionStorage", "BagsList",
            ]
        )
        #expect(try node.runtimeVersion().specName == "node")
        #expect(try node.runtimeVersion().specVersion == 267)

        let agung = try MetadataFixture.peaqAgungV14.metadata
        #expect(
            agung.pallets.map(\.name) == [
                "System", "RandomnessCollectiveFlip", "Timestamp", "Aura", "Balances", "TransactionPayment", "Sudo", "Contracts",
                "Utility", "Ethereum", "EVM", "DynamicFee", "BaseFee", "Authorship", "Session", "AuraExt", "ParachainStaking",
                "ParachainSystem", "ParachainInfo", "BlockReward", "XcmpQueue", "PolkadotXcm", "CumulusXcm", "DmpQueue",
                "Currencies", "Tokens", "XTokens", "UnknownTokens", "PeaqDid", "Transaction", "MultiSig", "PeaqRbac",
                "PeaqStorage", "PeaqMor",
            ]
        )
        #expect(
            try agung.runtimeVersion()
                == RuntimeVersion(
                    specName: "peaq-node-dev",
                    implName: "peaq-node-dev",
                    authoringVersion: 1,
                    specVersion: 5,
                    implVersion: 1,
                    transactionVersion: 1
                )
        )

        let mainnet = try MetadataFixture.peaqMainnetGenesisV14.metadata
        #expect(mainnet.pallets.count == 35)
        #expect(mainnet.pallet(named: "Treasury") != nil && mainnet.pallet(named: "Council") != nil)
        #expect(try mainnet.runtimeVersion().specName == "peaq-node")
        #expect(try mainnet.runtimeVersion().specVersion == 1)

        let rococo = try MetadataFixture.rococoV15.metadata
        #expect(rococo.pallets.map { "\($0.name)=\($0.index)" } == ["System=0", "Timestamp=2", "Balances=4", "Multisig=31", "ParaInherent=54"])
        #expect(
            try rococo.runtimeVersion()
                == RuntimeVersion(
                    specName: "rococo",
                    implName: "parity-rococo-v2.0",
                    authoringVersion: 0,
                    specVersion: 1_021_002,
                    implVersion: 0,
                    transactionVersion: 26
                )
        )
        #expect(rococo.apis.count == 20)

        let frontier = try MetadataFixture.frontierV15.metadata
        #expect(frontier.pallets.map { "\($0.name)=\($0.index)" } == ["System=0", "Balances=4"])
        #expect(try frontier.runtimeVersion().specName == "frontier-template")
        #expect(frontier.apis.count == 13)
    }

    @Test(
        "the signed-extension order is the metadata's",
        arguments: [
            (
                MetadataFixture.substrateNodeV14,
                ["CheckSpecVersion", "CheckTxVersion", "CheckGenesis", "CheckMortality", "CheckNonce", "CheckWeight", "ChargeTransactionPayment"]
            ),
            (
                MetadataFixture.peaqAgungV14,
                ["CheckSpecVersion", "CheckTxVersion", "CheckGenesis", "CheckMortality", "CheckNonce", "CheckWeight", "ChargeTransactionPayment"]
            ),
            (
                MetadataFixture.peaqMainnetGenesisV14,
                ["CheckSpecVersion", "CheckTxVersion", "CheckGenesis", "CheckMortality", "CheckNonce", "CheckWeight", "ChargeTransactionPayment"]
            ),
            (
                MetadataFixture.rococoV15,
                [
                    "AuthorizeCall", "CheckNonZeroSender", "CheckSpecVersion", "CheckTxVersion", "CheckGenesis", "CheckMortality", "CheckNonce",
                    "CheckWeight", "ChargeTransactionPayment", "CheckMetadataHash", "WeightReclaim",
                ]
            ),
            (
                MetadataFixture.frontierV15,
                [
                    "CheckNonZeroSender", "CheckSpecVersion", "CheckTxVersion", "CheckGenesis", "CheckMortality", "CheckNonce", "CheckWeight",
                    "ChargeTransactionPayment",
                ]
            ),
        ]
    )
    func extensionOrder(fixture: MetadataFixture, expected: [String]) throws {
        #expect(try fixture.metadata.extrinsic.signedExtensions.map(\.identifier) == expected)
    }

    /// V15 sections, as cyscale 0.8.0 decodes them (scalecodec 1.2.12 stops at V14; see Tests/Fixtures/substrate/README.md).
    @Test("V15 fixtures' extrinsic, outer enums and runtime APIs match cyscale")
    func v15Sections() throws {
        let rococo = try MetadataFixture.rococoV15.metadata
        #expect(rococo.types.types.count == 766)
        #expect(rococo.runtimeType == 484)
        #expect(rococo.extrinsic.version == 4)
        #expect(rococo.extrinsic.type == nil)
        #expect(
            [rococo.extrinsic.addressType, rococo.extrinsic.callType, rococo.extrinsic.signatureType, rococo.extrinsic.extraType]
                == [0, 8, 183, 421]
        )
        #expect(rococo.extrinsic.signedExtensions.map(\.type) == [407, 408, 409, 410, 411, 412, 414, 415, 416, 417, 420])
        #expect(rococo.extrinsic.signedExtensions.map(\.additionalSigned) == [4, 4, 14, 14, 15, 15, 4, 4, 4, 419, 4])
        #expect(rococo.outerEnums.map { [$0.callType, $0.eventType, $0.errorType] } == [8, 428, 720])
        #expect(rococo.custom.isEmpty)
        #expect(
            rococo.apis.map(\.name) == [
                "Core", "XcmPaymentApi", "DryRunApi", "LocationToAccountApi", "Metadata", "BlockBuilder", "TaggedTransactionQueue",
                "OffchainWorkerApi", "ParachainHost", "BeefyApi", "MmrApi", "GrandpaApi", "BabeApi", "AuthorityDiscoveryApi",
                "SessionKeys", "AccountNonceApi", "TransactionPaymentApi", "BeefyMmrApi", "GenesisBuilder", "TrustedQueryApi",
            ]
        )
        #expect(rococo.apis.reduce(0) { $0 + $1.methods.count } == 94)
        let core = try #require(rococo.apis.first)
        #expect(core.methods.map(\.name) == ["version", "execute_block", "initialize_block"])
        #expect(core.methods.map(\.output) == [538, 4, 580])
        #expect(core.methods[1].inputs.map(\.name) == ["block"])
        #expect(core.methods[1].inputs.map(\.type) == [576])
        #expect(rococo.pallets.map(\.callType) == [9, 30, 34, 196, 220])
        #expect(rococo.pallets.map(\.eventType) == [429, nil, 440, 489, nil])
        #expect(rococo.pallets.map(\.errorType) == [542, nil, 556, 562, 570])
        #expect(
            rococo.pallet(named: "Balances")?.storage?.entries.map(\.name) == [
                "TotalIssuance", "InactiveIssuance", "Account", "Locks", "Reserves", "Holds", "Freezes",
            ]
        )
        #expect(rococo.pallet(named: "Balances")?.constants.map(\.name) == ["ExistentialDeposit", "MaxLocks", "MaxReserves", "MaxFreezes"])

        let frontier = try MetadataFixture.frontierV15.metadata
        #expect(frontier.types.types.count == 201)
        #expect(frontier.runtimeType == 123)
        #expect(
            [frontier.extrinsic.addressType, frontier.extrinsic.callType, frontier.extrinsic.signatureType, frontier.extrinsic.extraType]
                == [0, 99, 111, 113]
        )
        #expect(frontier.extrinsic.signedExtensions.map(\.type) == [114, 115, 116, 117, 118, 120, 121, 122])
        #expect(frontier.extrinsic.signedExtensions.map(\.additionalSigned) == [39, 4, 4, 13, 13, 39, 39, 39])
        #expect(frontier.outerEnums.map { [$0.callType, $0.eventType, $0.errorType] } == [99, 22, 200])
        #expect(frontier.apis.reduce(0) { $0 + $1.methods.count } == 44)
        #expect(frontier.apis[1].name == "Metadata")
        #expect(frontier.apis[1].methods.map(\.name) == ["metadata", "metadata_at_version", "metadata_versions"])
    }

    // MARK: Lookups and type resolution

    @Test("lookups find pallets, call indices and storage entries by name")
    func lookups() throws {
        let agung = try MetadataFixture.peaqAgungV14.metadata
        #expect(agung.pallet(named: "Balances")?.index == 4)
        #expect(agung.pallet(index: 4)?.name == "Balances")
        #expect(agung.pallet(named: "balances") == nil)
        #expect(agung.pallet(index: 200) == nil)
        #expect(agung.callIndex(pallet: "Balances", call: "transfer_keep_alive") == CallIndex(pallet: 4, call: 3))
        #expect(agung.callIndex(pallet: "Balances", call: "transfer_keep_alive")?.bytes == [4, 3])
        #expect(agung.callIndex(pallet: "System", call: "remark") == CallIndex(pallet: 0, call: 1))
        #expect(agung.callIndex(pallet: "Balances", call: "transfer_allow_death") == nil)
        #expect(agung.callIndex(pallet: "Nope", call: "remark") == nil)
        #expect(agung.callIndex(pallet: "Timestamp", call: "nope") == nil)
        let transfer = try #require(agung.call(pallet: "Balances", call: "transfer"))
        #expect(transfer.name == "transfer")
        #expect(transfer.arguments.map(\.name) == ["dest", "value"])
        #expect(transfer.arguments.map { agung.types.displayName(of: $0.type) } == ["MultiAddress<AccountId32, u32>", "Compact<u128>"])

        let rococo = try MetadataFixture.rococoV15.metadata
        #expect(rococo.callIndex(pallet: "Balances", call: "transfer_allow_death") == CallIndex(pallet: 4, call: 0))
        #expect(rococo.callIndex(pallet: "Balances", call: "transfer") == nil)
        #expect(rococo.pallet(named: "Balances")?.docs.isEmpty == true)

        let account = try #require(agung.storageEntry(pallet: "System", item: "Account"))
        #expect(account.modifier == .default)
        #expect(account.hashers == [.blake2_128Concat])
        #expect(agung.types.displayName(of: account.valueType) == "AccountInfo<u32, AccountData<u128>>")
        guard case .map(_, let key, _) = account.kind else {
            Issue.record("System.Account is not a map")
            return
        }
        #expect(agung.types.displayName(of: key) == "AccountId32")
        #expect(agung.storageEntry(pallet: "System", item: "Nope") == nil)
        #expect(agung.storageEntry(pallet: "Timestamp", item: "Now")?.hashers == [])
        #expect(agung.constant(pallet: "Balances", name: "ExistentialDeposit") != nil)
    }

    @Test("type resolution names types and finds zero-sized ones")
    func typeResolution() throws {
        let node = try MetadataFixture.substrateNodeV14.metadata
        let types = node.types
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try node.resolve(MetadataTypeID(rawValue: UInt32(types.types.count))) }
        #expect(types[MetadataTypeID(rawValue: 1_000_000)] == nil)
        #expect(try node.resolve(0).path == ["sp_core", "crypto", "AccountId32"])
        #expect(types.first(path: ["sp_runtime", "multiaddress", "MultiAddress"]) != nil)
        let extensions = node.extrinsic.signedExtensions
        // Exactly the extras and additional data the spec lists are non-empty (chains.md §1.5).
        #expect(
            try extensions.filter { try !types.isZeroSized($0.type) }.map(\.identifier) == [
                "CheckMortality", "CheckNonce", "ChargeTransactionPayment",
            ]
        )
        #expect(
            try extensions.filter { try !types.isZeroSized($0.additionalSigned) }.map(\.identifier)
                == ["CheckSpecVersion", "CheckTxVersion", "CheckGenesis", "CheckMortality"]
        )
        #expect(extensions.map { types.displayName(of: $0.additionalSigned) } == ["u32", "u32", "H256", "H256", "()", "()", "()"])
        let rococo = try MetadataFixture.rococoV15.metadata
        let metadataHash = try #require(rococo.extrinsic.signedExtensions.first { $0.identifier == "CheckMetadataHash" })
        #expect(rococo.types.displayName(of: metadataHash.additionalSigned) == "Option<[u8; 32]>")
        #expect(rococo.types.displayName(of: try #require(rococo.extrinsic.addressType)) == "MultiAddress<AccountId32, ()>")
    }

    // MARK: Storage keys

    @Test("storage keys from metadata match hashing.json", arguments: try SubstrateVector.names(in: "hashing", kind: "storage_key"))
    func storageKeys(name: String) throws {
        let vector = try SubstrateVector(file: "hashing", named: name)
        let node = try MetadataFixture.substrateNodeV14.metadata
        let pallet = try vector.string("pallet")
        let item = try vector.string("item")
        let keys = try vector.strings("keys_scale").map { try Hex.decode($0) }
        guard let entry = node.storageEntry(pallet: pallet, item: item) else {
            // Only the made-up identity example is not in the node's runtime.
            #expect(pallet == "HubExample")
            return
        }
        #expect(entry.hashers.map(\.rawValue) == (try vector.strings("hashers")).map { StorageHasher(name: $0)?.rawValue ?? $0 })
        #expect(try node.storageKey(pallet: pallet, item: item, keys: keys).bytes == (try vector.bytes("storage_key")))
        #expect(try node.storageKey(pallet: pallet, item: item).bytes == StorageKey.prefix(pallet: pallet, item: item))
    }

    @Test("every storage hasher index decodes and keys a storage item", arguments: StorageHasher.allCases)
    func everyHasher(hasher: StorageHasher) throws {
        // Metadata's StorageHasher enum order: Blake2_128, Blake2_256, Blake2_128Concat, Twox128, Twox256, Twox64Concat, Identity.
        let order: [StorageHasher] = [.blake2_128, .blake2_256, .blake2_128Concat, .twox128, .twox256, .twox64Concat, .identity]
        let index = try #require(order.firstIndex(of: hasher))
        var tiny = TinyMetadata()
        tiny.storage = [
            .init(name: "Single", map: ([UInt8(index)], TinyMetadata.u32), value: TinyMetadata.u128),
            .init(name: "Double", map: ([UInt8(index), 5], TinyMetadata.u32), value: TinyMetadata.u128),
        ]
        let metadata = try tiny.metadata
        #expect(metadata.storageEntry(pallet: "Balances", item: "Single")?.hashers == [hasher])
        let key: [UInt8] = [7, 0, 0, 0]
        let prefix = twox128(Array("Balances".utf8)) + twox128(Array("Single".utf8))
        #expect(try metadata.storageKey(pallet: "Balances", item: "Single", keys: [key]).bytes == prefix + hasher.hash(key))
        let double = try metadata.storageKey(pallet: "Balances", item: "Double", keys: [key, [1]])
        #expect(double.bytes == twox128(Array("Balances".utf8)) + twox128(Array("Double".utf8)) + hasher.hash(key) + twox64([1]) + [1])
        #expect(throws: ChainKitError(.invalidTransaction, "")) {
            try metadata.storageKey(pallet: "Balances", item: "Single", keys: [key, key])
        }
    }

    @Test("storage keys of unknown pallets and items are refused")
    func unknownStorage() throws {
        let agung = try MetadataFixture.peaqAgungV14.metadata
        #expect(throws: ChainKitError(.invalidTransaction, "")) { try agung.storageKey(pallet: "Staking", item: "Bonded") }
        #expect(throws: ChainKitError(.invalidTransaction, "")) { try agung.storageKey(pallet: "System", item: "Nope") }
        #expect(throws: ChainKitError(.invalidTransaction, "")) { try agung.storageKey(pallet: "Utility", item: "Anything") }
    }

    // MARK: Refusals

    @Test(
        "a wrong magic or an unsupported version is refused",
        arguments: [
            Array("META".utf8) + [14],
            Array("mata".utf8) + [14],
            [0x00, 0x6d, 0x65, 0x74, 0x61, 14],
            Array("meta".utf8) + [13],
            Array("meta".utf8) + [16],
            Array("meta".utf8) + [0],
            Array("meta".utf8) + [255],
        ] as [[UInt8]]
    )
    func wrongHeader(header: [UInt8]) throws {
        let body = Array(try MetadataFixture.frontierV15.bytes.dropFirst(5))
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try RuntimeMetadata(bytes: header + body) }
    }

    @Test("the V16 header of the shared fixtures is refused as unsupported")
    func v16Refused() {
        do {
            _ = try RuntimeMetadata(bytes: Array("meta".utf8) + [16, 0])
            Issue.record("V16 accepted")
        } catch let error as ChainKitError {
            #expect(error.code == .invalidSCALE)
            #expect(error.message.contains("version 16"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a fixture truncated anywhere is refused, never trapping", arguments: stride(from: 0, to: 64, by: 1).map { $0 })
    func truncatedFixture(slice: Int) throws {
        let bytes = try MetadataFixture.frontierV15.bytes
        let cut = bytes.count * slice / 64 + slice  // spread over the blob, off the powers of two
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try RuntimeMetadata(bytes: bytes.prefix(cut)) }
    }

    @Test("a small blob truncated anywhere is refused", arguments: [UInt8(14), 15])
    func truncatedEverywhere(version: UInt8) throws {
        var tiny = TinyMetadata()
        tiny.version = version
        tiny.storage = [.init(name: "Account", map: ([2], TinyMetadata.accountID), value: TinyMetadata.u128)]
        let bytes = tiny.bytes
        _ = try RuntimeMetadata(bytes: bytes)
        // Every length in the header and in the sections after the registry; a sample inside the long Era type.
        let cuts = Set(Array(0..<300) + Array(stride(from: 300, to: bytes.count, by: 13)) + Array(max(0, bytes.count - 400)..<bytes.count))
        for cut in cuts.sorted() {
            #expect(throws: ChainKitError(.invalidSCALE, ""), "cut at \(cut)") { try RuntimeMetadata(bytes: bytes.prefix(cut)) }
        }
    }

    @Test(
        "garbage is refused",
        arguments: [
            [],
            Array("meta".utf8),
            Array("meta".utf8) + [14] + [UInt8](repeating: 0xFF, count: 64),
            Array("meta".utf8) + [15] + [0x03, 0xFF, 0xFF, 0xFF, 0xFF],  // 2^32 - 1 types, nothing after
            Array("meta".utf8) + [14] + [0x13] + [UInt8](repeating: 0xFF, count: 16),  // a compact beyond 2^64
            Array("meta".utf8) + [14, 0x04, 0x00, 0x00, 0x00, 0x09],  // one type with an unknown definition tag
            Array("meta".utf8) + [14, 0x04, 0x00, 0x00, 0x00, 0x05, 0x0F],  // primitive tag 15
            Array("meta".utf8) + [14, 0x04, 0x04, 0x00, 0x00, 0x05, 0x03, 0x00],  // type id 1 at position 0
            (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) },
        ] as [[UInt8]]
    )
    func garbage(bytes: [UInt8]) {
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try RuntimeMetadata(bytes: bytes) }
    }

    @Test("a registry whose ids are not positions is refused")
    func nonSequentialIDs() {
        var tiny = TinyMetadata()
        tiny.idOverride = [3: 30]
        #expect(throws: ChainKitError(.invalidSCALE, "")) { try tiny.metadata }
    }

    @Test("a tiny V15 blob decodes its APIs, outer enums, custom values and pallet docs")
    func tinyV15() throws {
        var tiny = TinyMetadata()
        tiny.version = 15
        let metadata = try tiny.metadata
        #expect(metadata.version == 15)
        #expect(metadata.apis.map(\.name) == ["AccountNonceApi"])
        #expect(metadata.apis.first?.methods.first?.inputs.map(\.name) == ["account"])
        #expect(metadata.apis.first?.methods.first?.inputs.map(\.type) == [4])
        #expect(metadata.apis.first?.methods.first?.output == 1)
        #expect(metadata.apis.first?.methods.first?.docs == ["The nonce"])
        #expect(metadata.outerEnums == nil ? false : metadata.outerEnums?.callType == 14)
        #expect(metadata.custom.map(\.name) == ["hubd"])
        #expect(try metadata.custom.first.map { try metadata.types.decodeValue(of: $0.type, from: $0.value) } == .unsigned(7))
        #expect(metadata.pallets.first?.docs == ["Docs of Balances"])
        #expect(metadata.extrinsic.addressType == 5)
        #expect(metadata.extrinsic.extraType == 17)
    }
}
