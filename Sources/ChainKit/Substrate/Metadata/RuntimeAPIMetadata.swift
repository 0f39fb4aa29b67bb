// The parts V15 added after the extrinsic section: runtime APIs, the outer enums, and custom values.

/// A runtime API trait (`Core`, `Metadata`, `AccountNonceApi`, …) and its methods, callable through `state_call`
/// as `"<name>_<method>"`.
public struct RuntimeAPIMetadata: Sendable, Hashable {
    /// The trait's name, such as `AccountNonceApi`.
    public let name: String
    /// Its methods.
    public let methods: [RuntimeAPIMethodMetadata]
    /// The trait's documentation.
    public let docs: [String]

    init(from decoder: inout SCALEDecoder) throws {
        name = try decoder.decode(String.self)
        methods = try decoder.decodeVector { decoder in try RuntimeAPIMethodMetadata(from: &decoder) }
        docs = try decoder.decode([String].self)
    }
}

/// A method of a runtime API: its SCALE-encoded inputs, in order, and its output type.
public struct RuntimeAPIMethodMetadata: Sendable, Hashable {
    /// An input of the method.
    public struct Parameter: Sendable, Hashable {
        /// The input's name.
        public let name: String
        /// The input's type.
        public let type: MetadataTypeID
    }

    /// The method's name, such as `account_nonce`.
    public let name: String
    /// The inputs, in the order they are encoded.
    public let inputs: [Parameter]
    /// The type of the result.
    public let output: MetadataTypeID
    /// The method's documentation.
    public let docs: [String]

    init(from decoder: inout SCALEDecoder) throws {
        name = try decoder.decode(String.self)
        inputs = try decoder.decodeVector { decoder in
            let name = try decoder.decode(String.self)
            return Parameter(name: name, type: try MetadataTypeID(from: &decoder))
        }
        output = try MetadataTypeID(from: &decoder)
        docs = try decoder.decode([String].self)
    }
}

/// The runtime's aggregate enums: every pallet's calls, events and errors, one variant per pallet.
public struct OuterEnumsMetadata: Sendable, Hashable {
    /// `RuntimeCall`.
    public let callType: MetadataTypeID
    /// `RuntimeEvent`.
    public let eventType: MetadataTypeID
    /// `RuntimeError`.
    public let errorType: MetadataTypeID

    init(from decoder: inout SCALEDecoder) throws {
        callType = try MetadataTypeID(from: &decoder)
        eventType = try MetadataTypeID(from: &decoder)
        errorType = try MetadataTypeID(from: &decoder)
    }
}

/// A chain-specific value the runtime publishes in its metadata (V15 `custom`), by name.
public struct CustomValueMetadata: Sendable, Hashable {
    /// The value's name.
    public let name: String
    /// The value's type.
    public let type: MetadataTypeID
    /// The SCALE bytes of the value.
    public let value: [UInt8]

    init(from decoder: inout SCALEDecoder) throws {
        name = try decoder.decode(String.self)
        type = try MetadataTypeID(from: &decoder)
        value = try decoder.decodeBytes()
    }
}
