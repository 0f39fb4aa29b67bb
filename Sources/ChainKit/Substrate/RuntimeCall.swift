/// A call into the runtime, as a signed extrinsic carries it: `pallet_index ‖ call_index ‖ SCALE(arguments)`.
///
/// Build one from metadata so the indices are the runtime's own (they differ between chains and can change
/// with a runtime upgrade), either from SCALE bytes you encoded or from ``SCALEValue``s the metadata encodes:
///
/// ```swift
/// let call = try RuntimeCall(
///     pallet: "Balances", call: "transfer_keep_alive",
///     values: [.variant(name: "Id", fields: [SCALEField(.bytes(bob))]), .unsigned(12_345)],
///     metadata: metadata
/// )
/// ```
public struct RuntimeCall: Sendable, Hashable {
    /// The pallet and call index bytes.
    public let index: CallIndex
    /// The SCALE-encoded arguments, in declaration order, with no length prefix.
    public let arguments: [UInt8]

    /// A call from raw parts, unchecked.
    public init(index: CallIndex, arguments: [UInt8]) {
        self.index = index
        self.arguments = arguments
    }

    /// The call `call` of pallet `pallet` with arguments already SCALE-encoded.
    ///
    /// The arguments are checked by decoding them as the call's argument types, so bytes of the wrong shape are
    /// refused here rather than by the node after signing.
    /// - Throws: `invalid_transaction` for an unknown pallet or call, or arguments that do not decode as the
    ///   call's fields (exactly, with no bytes left over).
    public init(pallet: String, call: String, arguments: [UInt8], metadata: RuntimeMetadata) throws {
        let callMetadata = try Self.lookUp(pallet: pallet, call: call, in: metadata)
        var decoder = SCALEDecoder(arguments)
        do {
            for field in callMetadata.arguments {
                _ = try metadata.types.decodeValue(of: field.type, from: &decoder)
            }
            try decoder.finish()
        } catch let error as ChainKitError {
            throw ChainKitError(.invalidTransaction, "arguments of \(pallet).\(call) do not decode as its fields: \(error.message)")
        }
        self.init(index: callMetadata.index, arguments: arguments)
    }

    /// The call `call` of pallet `pallet` with its arguments encoded from `values`, one per argument, in order.
    /// - Throws: `invalid_transaction` for an unknown pallet or call or the wrong number of values;
    ///   `invalid_scale` or `out_of_range` for a value that does not fit its argument's type.
    public init(pallet: String, call: String, values: [SCALEValue], metadata: RuntimeMetadata) throws {
        let callMetadata = try Self.lookUp(pallet: pallet, call: call, in: metadata)
        guard values.count == callMetadata.arguments.count else {
            throw ChainKitError(
                .invalidTransaction,
                "\(pallet).\(call) takes \(callMetadata.arguments.count) arguments, not \(values.count)"
            )
        }
        var encoder = SCALEEncoder()
        for (field, value) in zip(callMetadata.arguments, values) {
            try metadata.types.encodeValue(value, as: field.type, to: &encoder)
        }
        self.init(index: callMetadata.index, arguments: encoder.bytes)
    }

    /// `pallet_index ‖ call_index ‖ arguments`: the call as it appears in an extrinsic and in its signing payload.
    public var encoded: [UInt8] { index.bytes + arguments }

    private static func lookUp(pallet: String, call: String, in metadata: RuntimeMetadata) throws -> CallMetadata {
        guard metadata.pallet(named: pallet) != nil else {
            throw ChainKitError(.invalidTransaction, "the runtime has no pallet \(pallet)")
        }
        guard let callMetadata = metadata.call(pallet: pallet, call: call) else {
            throw ChainKitError(.invalidTransaction, "pallet \(pallet) has no call \(call)")
        }
        return callMetadata
    }
}
