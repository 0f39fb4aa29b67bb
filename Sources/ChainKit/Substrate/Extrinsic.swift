// Signed extrinsics, format version 4 (sp-runtime `generic/unchecked_extrinsic.rs`):
//
//   extrinsic = compact(len(body)) ‖ body
//   body      = 0x84 ‖ address ‖ signature ‖ extra ‖ call        (0x80 = signed, 4 = version)
//
// `extra` and the signing payload are assembled from the metadata's signed-extension list (see
// Extrinsic+SigningPayload.swift); this file holds the signer, the signature and the final bytes.

/// A key that signs extrinsics, with the account it signs for (`MultiAddress::Id(public key)`).
///
/// It holds secret key material: keep it out of logs.
public enum ExtrinsicSigner: Sendable {
    /// An sr25519 key (Substrate's default account key); signatures are randomized.
    case sr25519(Sr25519.KeyPair)
    /// An ed25519 key; signatures are deterministic.
    case ed25519(Ed25519.KeyPair)

    /// The 32-byte account id: the public key.
    public var accountID: [UInt8] {
        switch self {
        case .sr25519(let keyPair): keyPair.publicKey
        case .ed25519(let keyPair): keyPair.publicKey
        }
    }

    /// The signature scheme of the key.
    public var scheme: MultiSignature.Scheme {
        switch self {
        case .sr25519: .sr25519
        case .ed25519: .ed25519
        }
    }

    /// Signs `message` (Substrate's `substrate` context for sr25519).
    /// - Throws: `invalid_key` for a malformed sr25519 key pair.
    public func sign(_ message: [UInt8]) throws -> MultiSignature {
        switch self {
        case .sr25519(let keyPair): MultiSignature(unchecked: .sr25519, try Sr25519.sign(message, keyPair: keyPair))
        case .ed25519(let keyPair): MultiSignature(unchecked: .ed25519, Ed25519.sign(message, keyPair: keyPair))
        }
    }
}

/// A 64-byte signature tagged with its scheme (sp-runtime's `MultiSignature`, without the ECDSA case).
public struct MultiSignature: Sendable, Hashable {
    /// The signature scheme; its `MultiSignature` enum index is read from metadata (ed25519 0, sr25519 1).
    public enum Scheme: String, Sendable, Hashable, CaseIterable {
        /// `MultiSignature::Ed25519`.
        case ed25519 = "Ed25519"
        /// `MultiSignature::Sr25519`.
        case sr25519 = "Sr25519"

        /// The index sp-runtime's `MultiSignature` gives this scheme, used when metadata does not say.
        public var defaultIndex: UInt8 {
            switch self {
            case .ed25519: 0
            case .sr25519: 1
            }
        }
    }

    /// The scheme that made the signature.
    public let scheme: Scheme
    /// The 64 signature bytes.
    public let bytes: [UInt8]

    /// A signature made elsewhere (a hardware wallet, a remote signer).
    /// - Throws: `invalid_signature` unless `bytes` is 64 bytes.
    public init(scheme: Scheme, bytes: [UInt8]) throws {
        guard bytes.count == 64 else {
            throw ChainKitError(.invalidSignature, "an \(scheme.rawValue) signature is 64 bytes, not \(bytes.count)")
        }
        self.init(unchecked: scheme, bytes)
    }

    init(unchecked scheme: Scheme, _ bytes: [UInt8]) {
        self.scheme = scheme
        self.bytes = bytes
    }
}

/// A signed extrinsic (version 4), ready for `author_submitExtrinsic`.
///
/// ```swift
/// let metadata = try RuntimeMetadata(bytes: metadataBytes)
/// let call = try RuntimeCall(pallet: "Balances", call: "transfer_keep_alive", arguments: encodedArguments, metadata: metadata)
/// let values = SignedExtensionValues(
///     era: .mortal(period: 64, currentBlock: head), eraBlockHash: hashOfBirthBlock,
///     nonce: nonce, tip: 0, specVersion: version.specVersion, transactionVersion: version.transactionVersion,
///     genesisHash: genesis
/// )
/// let extrinsic = try SignedExtrinsic(metadata: metadata, call: call, signer: .sr25519(alice), values: values)
/// submit(Hex.encode(extrinsic.bytes))
/// ```
public struct SignedExtrinsic: Sendable, Hashable {
    /// What was signed: the call, the extensions' extra and additional-signed bytes.
    public let payload: SigningPayload
    /// The signer's 32-byte account id.
    public let signer: [UInt8]
    /// The signature over ``SigningPayload/message``.
    public let signature: MultiSignature
    /// `compact(length) ‖ 0x84 ‖ address ‖ signature ‖ extra ‖ call`.
    public let bytes: [UInt8]

    /// The first byte of the body: the signed bit (0x80) with extrinsic version 4.
    public static let signedVersionByte: UInt8 = 0x84

    /// Builds the payload from metadata, signs it and assembles the extrinsic.
    /// - Throws: as ``SigningPayload/init(metadata:call:values:)`` and ``init(payload:signer:)``.
    public init(metadata: RuntimeMetadata, call: RuntimeCall, signer: ExtrinsicSigner, values: SignedExtensionValues) throws {
        try self.init(payload: SigningPayload(metadata: metadata, call: call, values: values), signer: signer)
    }

    /// Signs `payload` (its blake2b-256 when longer than 256 bytes) and assembles the extrinsic.
    /// - Throws: `invalid_transaction` when the runtime's signature type has no variant for the key's scheme;
    ///   `invalid_key` for a malformed key.
    public init(payload: SigningPayload, signer: ExtrinsicSigner) throws {
        try self.init(payload: payload, signer: signer.accountID, signature: signer.sign(payload.message))
    }

    /// Assembles an extrinsic from a signature made elsewhere over `payload.message`.
    ///
    /// The signature is not verified here; a wrong one is refused by the node.
    /// - Throws: `invalid_transaction` for an account id that is not 32 bytes, or a scheme the runtime's
    ///   signature type does not accept.
    public init(payload: SigningPayload, signer account: [UInt8], signature: MultiSignature) throws {
        guard account.count == 32 else {
            throw ChainKitError(.invalidTransaction, "a signer account id is 32 bytes, not \(account.count)")
        }
        var body: [UInt8] = [Self.signedVersionByte]
        body += payload.layout.addressPrefix + account
        body += try payload.layout.signaturePrefix(for: signature.scheme) + signature.bytes
        body += payload.extra
        body += payload.call.encoded
        var encoder = SCALEEncoder(capacity: body.count + 5)
        encoder.encodeBytes(body)
        self.payload = payload
        self.signer = account
        self.signature = signature
        self.bytes = encoder.bytes
    }

    /// The extrinsic's hash, blake2b-256 of ``bytes``: how nodes and explorers name the transaction.
    public var hash: [UInt8] { blake2b256(bytes) }
}
