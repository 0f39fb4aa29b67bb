import ChainKit
import HubKernel

/// The offline registry's "chain": the runtime metadata its `PeaqDid` calls are built from, and
/// how it signs them into extrinsics and checks them again.
///
/// Every change to a DID is a signed v4 extrinsic exactly as a peaq node would take it (the call
/// found by pallet and call name in the metadata, the signed extensions the metadata lists),
/// immortal, tip 0, with the signer's nonce counted by the hub (its proofs so far). It commits to
/// ``offlineGenesisHash``, 32 zero bytes, which no chain has: a proof made offline cannot be
/// replayed on peaq. The same type, made from a node's metadata, genesis and runtime version,
/// signs the extrinsics that anchor those changes on the node (``DIDAnchorer``), mortal, with the
/// node's nonce.
struct DIDChain: Sendable {
    static let pallet = "PeaqDid"
    /// The offline registry's genesis hash (and era block hash, the era being immortal).
    static let offlineGenesisHash = [UInt8](repeating: 0, count: 32)

    let metadata: RuntimeMetadata
    let version: RuntimeVersion
    /// The hash of the chain's block 0 (``offlineGenesisHash`` for the offline registry).
    let genesisHash: [UInt8]

    /// The offline registry's chain, or a node's: its metadata, its genesis and the runtime
    /// version it answers (the metadata's `System.Version` when not given).
    init(metadata: RuntimeMetadata, genesisHash: [UInt8] = offlineGenesisHash, version: RuntimeVersion? = nil) throws {
        guard metadata.pallet(named: Self.pallet) != nil else {
            throw PluginConfigError(field: "metadata_file", message: "the runtime has no \(Self.pallet) pallet")
        }
        self.metadata = metadata
        self.genesisHash = genesisHash
        self.version = try version ?? metadata.runtimeVersion()
    }

    /// A mortal extrinsic's era and the hash of its birth block.
    struct Mortality: Sendable {
        var era: Era
        var birthBlockHash: [UInt8]
    }

    func values(nonce: UInt64, mortality: Mortality? = nil) -> SignedExtensionValues {
        var values = SignedExtensionValues(
            nonce: nonce,
            specVersion: version.specVersion,
            transactionVersion: version.transactionVersion,
            genesisHash: genesisHash
        )
        if let mortality {
            values.era = mortality.era
            values.eraBlockHash = mortality.birthBlockHash
        }
        return values
    }

    /// `PeaqDid.<call>` with its arguments, encoded through the metadata's types.
    func call(_ call: DIDCall) throws -> RuntimeCall {
        var values: [SCALEValue] = [.bytes(call.didAccount), .bytes(call.name)]
        switch call.kind {
        case .addAttribute, .updateAttribute:
            values.append(.bytes(call.value ?? []))
            values.append(call.validFor.map { .variant(name: "Some", fields: [SCALEField(.unsigned(UInt128($0)))]) } ?? .variant(name: "None"))
        case .readAttribute, .removeAttribute:
            break
        }
        return try RuntimeCall(pallet: Self.pallet, call: call.kind.rawValue, values: values, metadata: metadata)
    }

    /// What the signer's `nonce`-th extrinsic of `call` signs (immortal unless `mortality` is given).
    func payload(_ call: DIDCall, nonce: UInt64, mortality: Mortality? = nil) throws -> SigningPayload {
        try SigningPayload(metadata: metadata, call: self.call(call), values: values(nonce: nonce, mortality: mortality))
    }

    /// Signs `call` with `keyPair` as the signer's `nonce`-th extrinsic.
    func sign(_ call: DIDCall, keyPair: Sr25519.KeyPair, nonce: UInt64, mortality: Mortality? = nil) throws -> SignedExtrinsic {
        try SignedExtrinsic(payload: payload(call, nonce: nonce, mortality: mortality), signer: .sr25519(keyPair))
    }

    /// The extrinsic of `call` with an sr25519 signature its holder made over ``payload(_:nonce:)``'s
    /// message (not checked here: ``verify(_:)`` checks it).
    func assemble(_ call: DIDCall, signer: [UInt8], nonce: UInt64, signature: [UInt8], mortality: Mortality? = nil) throws -> SignedExtrinsic {
        try SignedExtrinsic(
            payload: payload(call, nonce: nonce, mortality: mortality),
            signer: signer,
            signature: MultiSignature(scheme: .sr25519, bytes: signature)
        )
    }

    /// Reads a stored proof back: the signer, nonce and `PeaqDid` call, all through the metadata's
    /// types, and checks its signature over the payload rebuilt from them (so a proof whose call,
    /// nonce or signature was altered does not verify).
    /// - Throws: `ChainKitError` for bytes that are not such an extrinsic; ``DIDProofError`` when
    ///   the signature does not verify.
    func verify(_ bytes: [UInt8]) throws -> VerifiedDIDProof {
        var outer = SCALEDecoder(bytes)
        let body = try outer.decodeBytes()
        try outer.finish()
        var decoder = SCALEDecoder(body)
        guard try decoder.decodeByte() == SignedExtrinsic.signedVersionByte else {
            throw ChainKitError(.invalidTransaction, "not a signed v4 extrinsic")
        }
        guard let addressType = metadata.extrinsic.addressType, let signatureType = metadata.extrinsic.signatureType else {
            throw ChainKitError(.invalidTransaction, "the metadata names no address or signature type")
        }
        guard let signer = try Self.account(metadata.types.decodeValue(of: addressType, from: &decoder)), signer.count == 32 else {
            throw ChainKitError(.invalidTransaction, "the signer is not an account id")
        }
        let signatureValue = try metadata.types.decodeValue(of: signatureType, from: &decoder)
        guard signatureValue.variantName == "Sr25519", let signature = signatureValue.fields?.first?.value.byteArray, signature.count == 64 else {
            throw ChainKitError(.invalidTransaction, "not an sr25519 signature")
        }
        let extraStart = decoder.offset
        var nonce: UInt64?
        for signedExtension in metadata.extrinsic.signedExtensions {
            let value = try metadata.types.decodeValue(of: signedExtension.type, from: &decoder)
            if signedExtension.identifier == "CheckNonce" { nonce = value.unsignedInteger.flatMap { UInt64(exactly: $0) } }
        }
        guard let nonce else { throw ChainKitError(.invalidTransaction, "no CheckNonce value") }
        let extra = Array(body[extraStart..<decoder.offset])
        let callBytes = Array(body[decoder.offset...])
        guard callBytes.count >= 2, let pallet = metadata.pallet(index: callBytes[0]), pallet.name == Self.pallet,
            let callName = callName(index: callBytes[1])
        else { throw ChainKitError(.invalidTransaction, "not a \(Self.pallet) call") }
        let call = try RuntimeCall(pallet: Self.pallet, call: callName, arguments: Array(callBytes[2...]), metadata: metadata)
        var arguments: [(String, SCALEValue)] = []
        if let callMetadata = metadata.call(pallet: Self.pallet, call: callName) {
            var argumentDecoder = SCALEDecoder(call.arguments)
            for field in callMetadata.arguments {
                arguments.append((field.name ?? "", try metadata.types.decodeValue(of: field.type, from: &argumentDecoder)))
            }
        }
        let payload = try SigningPayload(metadata: metadata, call: call, values: values(nonce: nonce))
        guard payload.extra == extra, Sr25519.verify(signature, message: payload.message, publicKey: signer) else {
            throw DIDProofError(message: "the proof's signature does not verify")
        }
        return VerifiedDIDProof(signer: signer, nonce: nonce, callName: callName, call: call, arguments: arguments, hash: blake2b256(bytes))
    }

    private func callName(index: UInt8) -> String? {
        guard let pallet = metadata.pallet(named: Self.pallet) else { return nil }
        return DIDCall.Kind.allCases.first { metadata.callIndex(pallet: pallet.name, call: $0.rawValue)?.call == index }?.rawValue
    }

    /// The account id of a `MultiAddress::Id` or a plain `AccountId32`.
    private static func account(_ value: SCALEValue) -> [UInt8]? {
        if case .variant(let name, _, let fields) = value {
            return name == "Id" ? fields.first?.value.byteArray : nil
        }
        return value.byteArray
    }
}

/// A `PeaqDid` call's arguments (peaq-pallet-did, rails.md §4.1).
struct DIDCall: Sendable, Hashable {
    enum Kind: String, Sendable, CaseIterable {
        case addAttribute = "add_attribute"
        case updateAttribute = "update_attribute"
        case readAttribute = "read_attribute"
        case removeAttribute = "remove_attribute"
    }

    var kind: Kind
    var didAccount: [UInt8]
    var name: [UInt8]
    var value: [UInt8]?
    var validFor: UInt32?
}

/// A proof read back and checked by ``DIDChain/verify(_:)``.
struct VerifiedDIDProof: Sendable {
    var signer: [UInt8]
    var nonce: UInt64
    var callName: String
    var call: RuntimeCall
    /// The call's arguments by name, as the metadata decodes them.
    var arguments: [(String, SCALEValue)]
    /// blake2-256 of the extrinsic's bytes: its hash on a chain.
    var hash: [UInt8]
}

struct DIDProofError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
