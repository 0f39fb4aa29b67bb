/// How the runtime's extrinsics are formed: their version, the types of their parts, and the signed extensions
/// whose data a signed extrinsic carries and signs.
public struct ExtrinsicMetadata: Sendable, Hashable {
    /// The extrinsic format version (4 for every runtime V14 and V15 metadata describes).
    public let version: UInt8
    /// The `UncheckedExtrinsic` type itself (V14 only; V15 lists its parts instead).
    public let type: MetadataTypeID?
    /// The signer's address type (`MultiAddress` on most chains), when the metadata says.
    public let addressType: MetadataTypeID?
    /// The outer call enum (`RuntimeCall`), when the metadata says.
    public let callType: MetadataTypeID?
    /// The signature type (`MultiSignature` on most chains), when the metadata says.
    public let signatureType: MetadataTypeID?
    /// The tuple of all signed extensions' `extra` data, when the metadata says.
    public let extraType: MetadataTypeID?
    /// The signed extensions, **in the order their data is encoded and signed**.
    public let signedExtensions: [SignedExtensionMetadata]

    init(from decoder: inout SCALEDecoder, version metadataVersion: UInt8, types: PortableRegistry) throws {
        if metadataVersion == 14 {
            let type = try MetadataTypeID(from: &decoder)
            self.type = type
            version = try decoder.decodeByte()
            signedExtensions = try decoder.decodeVector { decoder in try SignedExtensionMetadata(from: &decoder) }
            // V14 names the parts only as the generic parameters of `UncheckedExtrinsic<Address, Call, Signature, Extra>`.
            let parameters = types[type]?.parameters ?? []
            func parameter(_ name: String) -> MetadataTypeID? {
                parameters.first { $0.name == name }?.type
            }
            addressType = parameter("Address")
            callType = parameter("Call")
            signatureType = parameter("Signature")
            extraType = parameter("Extra")
        } else {
            type = nil
            version = try decoder.decodeByte()
            addressType = try MetadataTypeID(from: &decoder)
            callType = try MetadataTypeID(from: &decoder)
            signatureType = try MetadataTypeID(from: &decoder)
            extraType = try MetadataTypeID(from: &decoder)
            signedExtensions = try decoder.decodeVector { decoder in try SignedExtensionMetadata(from: &decoder) }
        }
    }
}

/// One signed extension (`CheckNonce`, `CheckMortality`, `ChargeTransactionPayment`, …).
///
/// Each contributes its `type` (the "extra") to the extrinsic and to the signing payload, and its
/// `additionalSigned` type only to the signing payload (data the node knows, such as the genesis hash).
/// Either may be zero-sized, in which case it contributes no bytes.
public struct SignedExtensionMetadata: Sendable, Hashable {
    /// The extension's name, such as `CheckMortality`.
    public let identifier: String
    /// The type of the data carried in the extrinsic.
    public let type: MetadataTypeID
    /// The type of the data only signed, never sent.
    public let additionalSigned: MetadataTypeID

    init(from decoder: inout SCALEDecoder) throws {
        identifier = try decoder.decode(String.self)
        type = try MetadataTypeID(from: &decoder)
        additionalSigned = try MetadataTypeID(from: &decoder)
    }
}
