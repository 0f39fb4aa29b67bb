// The signing payload of a v4 extrinsic, driven by the metadata's signed-extension list:
//
//   payload = call ‖ extra₁ … extraₙ ‖ additional₁ … additionalₙ     (n = the extensions, in metadata order)
//   signed  = payload if it is at most 256 bytes, else blake2b-256(payload)
//
// The order is the metadata's, never a fixed one (chains differ; chains.md §5 pitfall 10). Each extension's
// bytes are written from the spec (chains.md §1.5) and then checked by decoding them as the type the metadata
// declares for that extension, so a runtime whose extension changed shape is refused instead of mis-signed.

/// The values the signed extensions need. Extensions whose types are empty need nothing.
///
/// | extension | extra (sent and signed) | additional (signed only) |
/// |---|---|---|
/// | `CheckSpecVersion` | – | `specVersion` |
/// | `CheckTxVersion` | – | `transactionVersion` |
/// | `CheckGenesis` | – | `genesisHash` |
/// | `CheckMortality` / `CheckEra` | `era` | `eraBlockHash` (the genesis hash when immortal) |
/// | `CheckNonce` | `nonce` (compact) | – |
/// | `ChargeTransactionPayment` | `tip` (compact) | – |
/// | `ChargeAssetTxPayment` | `tip` (compact), `assetID` (Option) | – |
/// | `CheckMetadataHash` | mode: enabled iff `metadataHash` is set | `metadataHash` (Option) |
/// | any other | from ``custom``, else it must be empty | from ``custom``, else it must be empty |
public struct SignedExtensionValues: Sendable, Hashable {
    /// The extension data of an extension ChainKit does not know: the SCALE bytes of its extra and of its
    /// additional-signed value (each checked against the extension's types in the metadata).
    public struct Custom: Sendable, Hashable {
        /// The SCALE bytes of the extension's extra (sent and signed).
        public var extra: [UInt8]
        /// The SCALE bytes of its additional-signed value (signed only).
        public var additionalSigned: [UInt8]

        /// Both parts; leave out a part whose type is empty.
        public init(extra: [UInt8] = [], additionalSigned: [UInt8] = []) {
            self.extra = extra
            self.additionalSigned = additionalSigned
        }
    }

    /// The validity window. Mortal eras need ``eraBlockHash``.
    public var era: Era
    /// The hash of block `era.birth(currentBlock:)` for a mortal era; ignored for an immortal one.
    public var eraBlockHash: [UInt8]?
    /// The signer's next nonce (`system_accountNextIndex`).
    public var nonce: UInt64
    /// The tip for the block author, in the chain's smallest unit.
    public var tip: UInt128
    /// The runtime's `spec_version` (``RuntimeVersion/specVersion``).
    public var specVersion: UInt32
    /// The runtime's `transaction_version` (``RuntimeVersion/transactionVersion``).
    public var transactionVersion: UInt32
    /// The 32-byte hash of block 0.
    public var genesisHash: [UInt8]
    /// For `CheckMetadataHash`: the 32-byte metadata hash to commit to, or nil to disable the check.
    public var metadataHash: [UInt8]?
    /// For `ChargeAssetTxPayment`: the SCALE-encoded asset id to pay fees in, or nil for the native token.
    public var assetID: [UInt8]?
    /// Data for extensions ChainKit does not know, by identifier. Also overrides a known extension's data.
    public var custom: [String: Custom]

    /// The values for one extrinsic; `era` defaults to immortal, `tip` to 0, the rest to unused.
    public init(
        era: Era = .immortal,
        eraBlockHash: [UInt8]? = nil,
        nonce: UInt64,
        tip: UInt128 = 0,
        specVersion: UInt32,
        transactionVersion: UInt32,
        genesisHash: [UInt8],
        metadataHash: [UInt8]? = nil,
        assetID: [UInt8]? = nil,
        custom: [String: Custom] = [:]
    ) {
        self.era = era
        self.eraBlockHash = eraBlockHash
        self.nonce = nonce
        self.tip = tip
        self.specVersion = specVersion
        self.transactionVersion = transactionVersion
        self.genesisHash = genesisHash
        self.metadataHash = metadataHash
        self.assetID = assetID
        self.custom = custom
    }
}

/// What one signed extension contributed to a payload.
public struct EncodedSignedExtension: Sendable, Hashable {
    /// The extension's name, as in the metadata.
    public let identifier: String
    /// The bytes it adds to the extrinsic and the payload (empty for zero-sized extras).
    public let extra: [UInt8]
    /// The bytes it adds only to the payload.
    public let additionalSigned: [UInt8]
}

/// The bytes a signer signs for a v4 extrinsic, and the parts the extrinsic is assembled from.
///
/// Sign ``message``, not ``bytes``: payloads over 256 bytes are signed through their blake2b-256.
public struct SigningPayload: Sendable, Hashable {
    /// Payloads longer than this are signed through their blake2b-256.
    public static let maximumUnhashedLength = 256

    /// The call being signed.
    public let call: RuntimeCall
    /// Each extension's contribution, in metadata order.
    public let extensions: [EncodedSignedExtension]
    /// Every extension's extra, in metadata order (also part of the extrinsic).
    public let extra: [UInt8]
    /// Every extension's additional-signed value, in metadata order (never sent).
    public let additionalSigned: [UInt8]
    /// How this runtime writes the address and the signature.
    let layout: ExtrinsicLayout

    /// The payload for `call` under `metadata`'s signed extensions.
    /// - Throws: `invalid_transaction` for an extrinsic version other than 4, a signed extension with data that
    ///   ChainKit does not know and ``SignedExtensionValues/custom`` does not supply (the message names it), a
    ///   value that does not fit the extension's type (a nonce too large for `Compact<u32>`), a hash that is not
    ///   32 bytes, a mortal era without its block hash, or an address type other than `MultiAddress`/`AccountId32`.
    public init(metadata: RuntimeMetadata, call: RuntimeCall, values: SignedExtensionValues) throws {
        guard metadata.extrinsic.version == 4 else {
            throw ChainKitError(.invalidTransaction, "extrinsic version \(metadata.extrinsic.version) is not supported (only 4)")
        }
        layout = try ExtrinsicLayout(metadata: metadata)
        var extensions: [EncodedSignedExtension] = []
        for extensionMetadata in metadata.extrinsic.signedExtensions {
            extensions.append(try Self.encode(extensionMetadata, values: values, types: metadata.types))
        }
        self.call = call
        self.extensions = extensions
        extra = extensions.flatMap(\.extra)
        additionalSigned = extensions.flatMap(\.additionalSigned)
    }

    /// `call ‖ extra ‖ additional signed`.
    public var bytes: [UInt8] { call.encoded + extra + additionalSigned }

    /// What the key signs: ``bytes``, or their blake2b-256 when longer than 256 bytes.
    public var message: [UInt8] {
        let bytes = bytes
        return bytes.count > Self.maximumUnhashedLength ? blake2b256(bytes) : bytes
    }

    // MARK: Extensions

    private static func encode(
        _ metadata: SignedExtensionMetadata,
        values: SignedExtensionValues,
        types: PortableRegistry
    ) throws -> EncodedSignedExtension {
        let name = metadata.identifier
        let parts: (extra: [UInt8], additional: [UInt8])?
        if let custom = values.custom[name] {
            parts = (custom.extra, custom.additionalSigned)
        } else {
            parts = try known(name, values: values)
        }
        guard let parts else {
            // Unknown: acceptable only when it carries nothing at all.
            for (role, type) in [("extra", metadata.type), ("additional-signed", metadata.additionalSigned)] {
                guard try types.isZeroSized(type) else {
                    throw ChainKitError(
                        .invalidTransaction,
                        "signed extension \(name) is not known to ChainKit and its \(role) type \(types.displayName(of: type)) "
                            + "is not empty; supply its bytes in SignedExtensionValues.custom[\"\(name)\"]"
                    )
                }
            }
            return EncodedSignedExtension(identifier: name, extra: [], additionalSigned: [])
        }
        try check(parts.extra, as: metadata.type, role: "extra", of: name, types: types)
        try check(parts.additional, as: metadata.additionalSigned, role: "additional-signed", of: name, types: types)
        return EncodedSignedExtension(identifier: name, extra: parts.extra, additionalSigned: parts.additional)
    }

    /// The bytes of an extension ChainKit knows (chains.md §1.5), or nil for an unknown one.
    private static func known(_ name: String, values: SignedExtensionValues) throws -> (extra: [UInt8], additional: [UInt8])? {
        var extra = SCALEEncoder()
        var additional = SCALEEncoder()
        switch name {
        case "CheckSpecVersion":
            additional.encodeInteger(values.specVersion)
        case "CheckTxVersion":
            additional.encodeInteger(values.transactionVersion)
        case "CheckGenesis":
            additional.encodeRaw(try hash32(values.genesisHash, "the genesis hash"))
        case "CheckMortality", "CheckEra":
            extra.encode(values.era)
            if values.era.isImmortal {
                additional.encodeRaw(try hash32(values.genesisHash, "the genesis hash"))
            } else {
                guard let blockHash = values.eraBlockHash else {
                    throw ChainKitError(.invalidTransaction, "\(name): a mortal era needs eraBlockHash, the hash of its birth block")
                }
                additional.encodeRaw(try hash32(blockHash, "the era's block hash"))
            }
        case "CheckNonce":
            extra.encodeCompact(values.nonce)
        case "ChargeTransactionPayment":
            extra.encodeCompact(values.tip)
        case "ChargeAssetTxPayment":
            extra.encodeCompact(values.tip)
            extra.encodeOption(values.assetID) { encoder, asset in encoder.encodeRaw(asset) }
        case "CheckMetadataHash":
            // frame-metadata-hash-extension: `Mode` is an enum { Disabled = 0, Enabled = 1 }; the additional
            // data is `Option<[u8; 32]>`, Some(hash) exactly when enabled.
            extra.encodeInteger(UInt8(values.metadataHash == nil ? 0 : 1))
            let hash = try values.metadataHash.map { try hash32($0, "the metadata hash") }
            additional.encodeOption(hash) { encoder, hash in encoder.encodeRaw(hash) }
        default:
            return nil
        }
        return (extra.bytes, additional.bytes)
    }

    /// Checks that `bytes` decode as exactly one value of `type`.
    private static func check(_ bytes: [UInt8], as type: MetadataTypeID, role: String, of name: String, types: PortableRegistry) throws {
        do {
            _ = try types.decodeValue(of: type, from: bytes)
        } catch let error as ChainKitError {
            throw ChainKitError(
                .invalidTransaction,
                "signed extension \(name): its \(role) bytes \(Hex.encode(bytes)) do not fit its type "
                    + "\(types.displayName(of: type)) in this runtime (\(error.message))"
            )
        }
    }

    private static func hash32(_ hash: [UInt8], _ what: String) throws -> [UInt8] {
        guard hash.count == 32 else {
            throw ChainKitError(.invalidTransaction, "\(what) is 32 bytes, not \(hash.count)")
        }
        return hash
    }
}

/// How a runtime writes the signer's address and the signature in an extrinsic, from its metadata.
struct ExtrinsicLayout: Sendable, Hashable {
    /// The bytes before the 32-byte account id: `[index of MultiAddress::Id]`, or none for a plain `AccountId32`.
    let addressPrefix: [UInt8]
    /// The `MultiSignature` variant index of each scheme, or nil when the signature type is a plain 64 bytes.
    let signatureIndices: [MultiSignature.Scheme: UInt8]?

    init(metadata: RuntimeMetadata) throws {
        let types = metadata.types
        if let address = metadata.extrinsic.addressType {
            addressPrefix = try Self.addressPrefix(address, types: types)
        } else {
            addressPrefix = [0]  // MultiAddress::Id
        }
        if let signature = metadata.extrinsic.signatureType {
            signatureIndices = try Self.signatureIndices(signature, types: types)
        } else {
            signatureIndices = Dictionary(uniqueKeysWithValues: MultiSignature.Scheme.allCases.map { ($0, $0.defaultIndex) })
        }
    }

    func signaturePrefix(for scheme: MultiSignature.Scheme) throws -> [UInt8] {
        guard let signatureIndices else { return [] }
        guard let index = signatureIndices[scheme] else {
            throw ChainKitError(.invalidTransaction, "this runtime's signature type has no \(scheme.rawValue) variant")
        }
        return [index]
    }

    private static func addressPrefix(_ id: MetadataTypeID, types: PortableRegistry) throws -> [UInt8] {
        let accountBytes: [UInt8] = Array(repeating: 0, count: 32)
        switch try types.resolve(id).definition {
        case .variant(let variants):
            guard let variant = variants.first(where: { $0.name == "Id" }), variant.fields.count == 1,
                (try? types.decodeValue(of: variant.fields[0].type, from: accountBytes)) != nil
            else {
                throw ChainKitError(.invalidTransaction, "address type \(types.displayName(of: id)) has no Id(AccountId32) variant")
            }
            return [variant.index]
        default:
            guard (try? types.decodeValue(of: id, from: accountBytes)) != nil else {
                throw ChainKitError(.invalidTransaction, "address type \(types.displayName(of: id)) is not a 32-byte account id")
            }
            return []
        }
    }

    private static func signatureIndices(_ id: MetadataTypeID, types: PortableRegistry) throws -> [MultiSignature.Scheme: UInt8]? {
        let signatureBytes: [UInt8] = Array(repeating: 0, count: 64)
        switch try types.resolve(id).definition {
        case .variant(let variants):
            var indices: [MultiSignature.Scheme: UInt8] = [:]
            for scheme in MultiSignature.Scheme.allCases {
                if let variant = variants.first(where: { $0.name == scheme.rawValue }), variant.fields.count == 1,
                    (try? types.decodeValue(of: variant.fields[0].type, from: signatureBytes)) != nil
                {
                    indices[scheme] = variant.index
                }
            }
            return indices
        default:
            guard (try? types.decodeValue(of: id, from: signatureBytes)) != nil else {
                throw ChainKitError(.invalidTransaction, "signature type \(types.displayName(of: id)) is not a 64-byte signature")
            }
            return nil
        }
    }
}
