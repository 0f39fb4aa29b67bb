import ChainKit

/// A small hand-assembled metadata blob, for cases no fixture has: unknown or reordered signed extensions,
/// every storage hasher, other extrinsic versions, recursive or malformed type registries.
///
/// It writes the V14/V15 layout field by field with ``SCALEEncoder``, independently of the decoder under test.
struct TinyMetadata {
    /// A type definition, written as scale-info's `TypeDef`.
    enum Definition {
        case composite([(name: String?, type: UInt32)])
        case variant([(name: String, index: UInt8, fields: [(name: String?, type: UInt32)])])
        case sequence(UInt32)
        case array(length: UInt32, of: UInt32)
        case tuple([UInt32])
        case primitive(UInt8)
        case compact(UInt32)
        case bitSequence(store: UInt32, order: UInt32)
    }

    struct TypeEntry {
        var path: [String] = []
        var parameters: [(name: String, type: UInt32?)] = []
        var definition: Definition
    }

    struct StorageItem {
        var name: String
        /// nil for a plain value; else (hasher indices, key type).
        var map: (hashers: [UInt8], key: UInt32)?
        var value: UInt32
        var modifier: UInt8 = 1
        var defaultValue: [UInt8] = []
    }

    var version: UInt8 = 14
    var extrinsicVersion: UInt8 = 4
    var types: [TypeEntry] = TinyMetadata.standardTypes
    var extensions: [(identifier: String, type: UInt32, additional: UInt32)] = TinyMetadata.standardExtensions
    var storage: [StorageItem] = []
    /// Overrides the id written for type `n` (to build a registry whose ids are not 0, 1, 2, …).
    var idOverride: [Int: UInt32] = [:]

    // The standard registry: ids are positions in this list.
    static let u8: UInt32 = 0
    static let u32: UInt32 = 1
    static let u128: UInt32 = 2
    static let bytes32: UInt32 = 3
    static let accountID: UInt32 = 4
    static let multiAddress: UInt32 = 5
    static let compactU128: UInt32 = 6
    static let compactU32: UInt32 = 7
    static let unitStruct: UInt32 = 8
    static let era: UInt32 = 9
    static let checkMortality: UInt32 = 10
    static let h256: UInt32 = 11
    static let checkNonce: UInt32 = 12
    static let chargeTransactionPayment: UInt32 = 13
    static let balancesCall: UInt32 = 14
    static let bytes64: UInt32 = 15
    static let multiSignature: UInt32 = 16
    static let emptyTuple: UInt32 = 17
    static let checkHubd: UInt32 = 18
    static let bool: UInt32 = 19
    static let byteVector: UInt32 = 20
    static let uncheckedExtrinsic: UInt32 = 21

    static let standardTypes: [TypeEntry] = [
        TypeEntry(definition: .primitive(3)),  // 0 u8
        TypeEntry(definition: .primitive(5)),  // 1 u32
        TypeEntry(definition: .primitive(7)),  // 2 u128
        TypeEntry(definition: .array(length: 32, of: u8)),  // 3 [u8; 32]
        TypeEntry(path: ["sp_core", "crypto", "AccountId32"], definition: .composite([(nil, bytes32)])),  // 4
        TypeEntry(
            path: ["sp_runtime", "multiaddress", "MultiAddress"],
            definition: .variant([("Id", 0, [(nil, accountID)]), ("Index", 1, [(nil, compactU32)])])
        ),  // 5
        TypeEntry(definition: .compact(u128)),  // 6
        TypeEntry(definition: .compact(u32)),  // 7
        TypeEntry(path: ["frame_system", "extensions", "check_weight", "CheckWeight"], definition: .composite([])),  // 8
        TypeEntry(
            path: ["sp_runtime", "generic", "era", "Era"],
            definition: .variant([("Immortal", 0, [])] + (1...255).map { ("Mortal\($0)", UInt8($0), [(nil, u8)]) })
        ),  // 9
        TypeEntry(path: ["frame_system", "extensions", "check_mortality", "CheckMortality"], definition: .composite([(nil, era)])),  // 10
        TypeEntry(path: ["primitive_types", "H256"], definition: .composite([(nil, bytes32)])),  // 11
        TypeEntry(path: ["frame_system", "extensions", "check_nonce", "CheckNonce"], definition: .composite([(nil, compactU32)])),  // 12
        TypeEntry(
            path: ["pallet_transaction_payment", "ChargeTransactionPayment"],
            definition: .composite([(nil, compactU128)])
        ),  // 13
        TypeEntry(
            path: ["pallet_balances", "pallet", "Call"],
            definition: .variant([("transfer_keep_alive", 3, [("dest", multiAddress), ("value", compactU128)])])
        ),  // 14
        TypeEntry(definition: .array(length: 64, of: u8)),  // 15 [u8; 64]
        TypeEntry(
            path: ["sp_runtime", "MultiSignature"],
            definition: .variant([("Ed25519", 0, [(nil, bytes64)]), ("Sr25519", 1, [(nil, bytes64)])])
        ),  // 16
        TypeEntry(definition: .tuple([])),  // 17 ()
        TypeEntry(path: ["hubd", "CheckHubd"], definition: .composite([(nil, u32)])),  // 18
        TypeEntry(definition: .primitive(0)),  // 19 bool
        TypeEntry(definition: .sequence(u8)),  // 20 Vec<u8>
        TypeEntry(
            path: ["sp_runtime", "generic", "unchecked_extrinsic", "UncheckedExtrinsic"],
            parameters: [("Address", multiAddress), ("Call", balancesCall), ("Signature", multiSignature), ("Extra", emptyTuple)],
            definition: .composite([(nil, byteVector)])
        ),  // 21
    ]

    /// A peaq-like list, as in the fixtures.
    static let standardExtensions: [(identifier: String, type: UInt32, additional: UInt32)] = [
        ("CheckSpecVersion", unitStruct, u32),
        ("CheckTxVersion", unitStruct, u32),
        ("CheckGenesis", unitStruct, h256),
        ("CheckMortality", checkMortality, h256),
        ("CheckNonce", checkNonce, emptyTuple),
        ("CheckWeight", unitStruct, emptyTuple),
        ("ChargeTransactionPayment", chargeTransactionPayment, emptyTuple),
    ]

    /// The blob: `meta`, the version, and the body.
    var bytes: [UInt8] {
        var encoder = SCALEEncoder()
        encoder.encodeRaw(Array("meta".utf8))
        encoder.encodeInteger(version)
        // Type registry.
        encoder.encodeCompact(UInt64(types.count))
        for (position, type) in types.enumerated() {
            encoder.encodeCompact(idOverride[position] ?? UInt32(position))
            encoder.encode(type.path)
            encoder.encodeCompact(UInt64(type.parameters.count))
            for parameter in type.parameters {
                encoder.encode(parameter.name)
                encoder.encodeOption(parameter.type) { encoder, type in encoder.encodeCompact(type) }
            }
            Self.encode(type.definition, to: &encoder)
            encoder.encode([String]())  // docs
        }
        // One pallet, "Balances" at index 4, with its calls and the storage items.
        encoder.encodeCompact(UInt8(1))
        encoder.encode("Balances")
        if storage.isEmpty {
            encoder.encodeInteger(UInt8(0))
        } else {
            encoder.encodeInteger(UInt8(1))
            encoder.encode("Balances")
            encoder.encodeCompact(UInt64(storage.count))
            for item in storage {
                encoder.encode(item.name)
                encoder.encodeInteger(item.modifier)
                if let map = item.map {
                    encoder.encodeInteger(UInt8(1))
                    encoder.encodeBytes(map.hashers)
                    encoder.encodeCompact(map.key)
                } else {
                    encoder.encodeInteger(UInt8(0))
                }
                encoder.encodeCompact(item.value)
                encoder.encodeBytes(item.defaultValue)
                encoder.encode([String]())
            }
        }
        encoder.encodeOption(Self.balancesCall) { encoder, type in encoder.encodeCompact(type) }  // calls
        encoder.encodeInteger(UInt8(0))  // event: None
        encoder.encodeCompact(UInt8(0))  // constants: none
        encoder.encodeInteger(UInt8(0))  // error: None
        encoder.encodeInteger(UInt8(4))  // index
        if version >= 15 { encoder.encode(["Docs of Balances"]) }
        // Extrinsic.
        if version >= 15 {
            encoder.encodeInteger(extrinsicVersion)
            for type in [Self.multiAddress, Self.balancesCall, Self.multiSignature, Self.emptyTuple] {
                encoder.encodeCompact(type)
            }
        } else {
            encoder.encodeCompact(Self.uncheckedExtrinsic)
            encoder.encodeInteger(extrinsicVersion)
        }
        encoder.encodeCompact(UInt64(extensions.count))
        for (identifier, type, additional) in extensions {
            encoder.encode(identifier)
            encoder.encodeCompact(type)
            encoder.encodeCompact(additional)
        }
        encoder.encodeCompact(Self.unitStruct)  // the runtime type
        if version >= 15 {
            // One runtime API with one method, the outer enums, one custom value.
            encoder.encodeCompact(UInt8(1))
            encoder.encode("AccountNonceApi")
            encoder.encodeCompact(UInt8(1))
            encoder.encode("account_nonce")
            encoder.encodeCompact(UInt8(1))
            encoder.encode("account")
            encoder.encodeCompact(Self.accountID)
            encoder.encodeCompact(Self.u32)
            encoder.encode(["The nonce"])
            encoder.encode([String]())
            for type in [Self.balancesCall, Self.unitStruct, Self.unitStruct] { encoder.encodeCompact(type) }
            encoder.encodeCompact(UInt8(1))
            encoder.encode("hubd")
            encoder.encodeCompact(Self.u32)
            encoder.encodeBytes([7, 0, 0, 0])
        }
        return encoder.bytes
    }

    private static func encode(_ definition: Definition, to encoder: inout SCALEEncoder) {
        func fields(_ fields: [(name: String?, type: UInt32)]) {
            encoder.encodeCompact(UInt64(fields.count))
            for field in fields {
                encoder.encode(field.name)
                encoder.encodeCompact(field.type)
                encoder.encode(String?.none)
                encoder.encode([String]())
            }
        }
        switch definition {
        case .composite(let list):
            encoder.encodeInteger(UInt8(0))
            fields(list)
        case .variant(let variants):
            encoder.encodeInteger(UInt8(1))
            encoder.encodeCompact(UInt64(variants.count))
            for variant in variants {
                encoder.encode(variant.name)
                fields(variant.fields)
                encoder.encodeInteger(variant.index)
                encoder.encode([String]())
            }
        case .sequence(let element):
            encoder.encodeInteger(UInt8(2))
            encoder.encodeCompact(element)
        case .array(let length, let element):
            encoder.encodeInteger(UInt8(3))
            encoder.encodeInteger(length)
            encoder.encodeCompact(element)
        case .tuple(let elements):
            encoder.encodeInteger(UInt8(4))
            encoder.encodeCompact(UInt64(elements.count))
            for element in elements { encoder.encodeCompact(element) }
        case .primitive(let tag):
            encoder.encodeInteger(UInt8(5))
            encoder.encodeInteger(tag)
        case .compact(let inner):
            encoder.encodeInteger(UInt8(6))
            encoder.encodeCompact(inner)
        case .bitSequence(let store, let order):
            encoder.encodeInteger(UInt8(7))
            encoder.encodeCompact(store)
            encoder.encodeCompact(order)
        }
    }

    /// Appends a type and returns its id.
    mutating func add(_ entry: TypeEntry) -> UInt32 {
        types.append(entry)
        return UInt32(types.count - 1)
    }

    /// The decoded metadata.
    var metadata: RuntimeMetadata {
        get throws { try RuntimeMetadata(bytes: bytes) }
    }
}
