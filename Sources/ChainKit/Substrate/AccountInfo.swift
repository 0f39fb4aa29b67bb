/// An account's `System.Account` entry: its nonce, reference counts and balances (`frame_system::AccountInfo`
/// with `pallet_balances::AccountData`).
///
/// Decoding follows the runtime's own type for the item, so both balance layouts read:
/// the one before pallet-balances' 2023 rework (`free, reserved, misc_frozen, fee_frozen`) and the one after
/// (`free, reserved, frozen, flags`). Amounts are `UInt128`, the `Balance` of every chain ChainKit targets.
///
/// ```swift
/// let key = try AccountInfo.storageKey(accountID: alice, metadata: metadata)   // for state_getStorage
/// let info = try AccountInfo(storageValue: storedBytesOrNil, metadata: metadata)
/// print(info.nonce, info.data.free)
/// ```
public struct AccountInfo: Sendable, Hashable {
    /// The number of extrinsics the account has signed: the nonce its next one must carry.
    public var nonce: UInt64
    /// How many modules hold references that keep this account from being reaped (its own dependents).
    public var consumers: UInt32
    /// How many modules allow this account to exist (a balance above the existential deposit is one).
    public var providers: UInt32
    /// How many modules allow this account to exist on their own (sufficient assets).
    public var sufficients: UInt32
    /// The balances.
    public var data: AccountData

    /// An account from its fields.
    public init(nonce: UInt64, consumers: UInt32, providers: UInt32, sufficients: UInt32, data: AccountData) {
        self.nonce = nonce
        self.consumers = consumers
        self.providers = providers
        self.sufficients = sufficients
        self.data = data
    }

    /// Decodes a `System.Account` value read from a node, by the metadata's type for the item.
    /// - Parameters:
    ///   - bytes: the stored SCALE bytes, or nil when the node has no entry (the account was never funded or was
    ///     reaped), which reads as the item's default: everything zero.
    ///   - metadata: the runtime's metadata.
    /// - Throws: `invalid_transaction` when the runtime has no `System.Account`; `invalid_scale` for bytes that
    ///   do not decode as its type, or a type without the fields of `AccountInfo`.
    public init(storageValue bytes: [UInt8]?, metadata: RuntimeMetadata) throws {
        guard let value = try metadata.decodeStorageValue(pallet: "System", item: "Account", bytes: bytes) else {
            throw ChainKitError(.invalidSCALE, "System.Account has no value and no default")
        }
        try self.init(value: value)
    }

    /// Reads the fields of a decoded `AccountInfo` value.
    /// - Throws: `invalid_scale` for a value without the fields of `AccountInfo` and `AccountData`.
    public init(value: SCALEValue) throws {
        guard let data = value["data"] else {
            throw ChainKitError(.invalidSCALE, "System.Account value has no field data")
        }
        self.init(
            nonce: try Self.integer(value, "nonce"),
            consumers: try Self.integer(value, "consumers"),
            providers: try Self.integer(value, "providers"),
            sufficients: try Self.integer(value, "sufficients"),
            data: try AccountData(value: data)
        )
    }

    /// The storage key of `accountID`'s entry, from the metadata's hasher for `System.Account`
    /// (`twox128("System") ‖ twox128("Account") ‖ blake2_128_concat(accountID)` on every FRAME chain).
    /// - Throws: `invalid_transaction` when the runtime has no `System.Account`.
    public static func storageKey(accountID: [UInt8], metadata: RuntimeMetadata) throws -> StorageKey {
        try metadata.storageKey(pallet: "System", item: "Account", keys: [accountID])
    }

    static func integer<T: FixedWidthInteger>(_ value: SCALEValue, _ field: String) throws -> T {
        guard let integer = value[field]?.unsignedInteger else {
            throw ChainKitError(.invalidSCALE, "account value has no unsigned integer field \(field)")
        }
        guard let result = T(exactly: integer) else {
            throw ChainKitError(.invalidSCALE, "account field \(field) = \(integer) does not fit \(T.self)")
        }
        return result
    }
}

/// The balances of an account (`pallet_balances::AccountData`), in either of its layouts.
///
/// - Before pallet-balances' 2023 rework: `free, reserved, misc_frozen, fee_frozen`. ``miscFrozen`` and
///   ``feeFrozen`` are set, ``flags`` is nil, and ``frozen`` is their maximum (what the rework's migration
///   stores as `frozen`).
/// - After: `free, reserved, frozen, flags`. ``frozen`` and ``flags`` are set; the other two are nil.
public struct AccountData: Sendable, Hashable {
    /// The balance the account can use, some of which may be frozen.
    public var free: UInt128
    /// The balance set aside by pallets (deposits, bonds); not part of ``free``.
    public var reserved: UInt128
    /// The part of the balance locks and freezes hold (see the type's notes for the legacy layout).
    public var frozen: UInt128
    /// Legacy layout only: the amount frozen against everything but fee payment.
    public var miscFrozen: UInt128?
    /// Legacy layout only: the amount frozen against fee payment.
    public var feeFrozen: UInt128?
    /// Current layout only: `ExtraFlags` (the top bit marks accounts migrated to the new reserve logic).
    public var flags: UInt128?

    /// Balances in the current layout.
    public init(free: UInt128, reserved: UInt128, frozen: UInt128, flags: UInt128) {
        self.free = free
        self.reserved = reserved
        self.frozen = frozen
        self.flags = flags
    }

    /// Balances in the legacy layout.
    public init(free: UInt128, reserved: UInt128, miscFrozen: UInt128, feeFrozen: UInt128) {
        self.free = free
        self.reserved = reserved
        frozen = max(miscFrozen, feeFrozen)
        self.miscFrozen = miscFrozen
        self.feeFrozen = feeFrozen
    }

    /// Whether the value came in the pre-2023 layout (`misc_frozen`, `fee_frozen`).
    public var isLegacyLayout: Bool { miscFrozen != nil }

    /// Reads a decoded `AccountData` value in either layout.
    /// - Throws: `invalid_scale` for a value with neither layout's fields.
    public init(value: SCALEValue) throws {
        let free: UInt128 = try AccountInfo.integer(value, "free")
        let reserved: UInt128 = try AccountInfo.integer(value, "reserved")
        if value["frozen"] != nil || value["flags"] != nil {
            self.init(
                free: free,
                reserved: reserved,
                frozen: try AccountInfo.integer(value, "frozen"),
                flags: try AccountInfo.integer(value, "flags")
            )
        } else if value["misc_frozen"] != nil || value["fee_frozen"] != nil {
            self.init(
                free: free,
                reserved: reserved,
                miscFrozen: try AccountInfo.integer(value, "misc_frozen"),
                feeFrozen: try AccountInfo.integer(value, "fee_frozen")
            )
        } else {
            throw ChainKitError(.invalidSCALE, "account data has neither frozen/flags nor misc_frozen/fee_frozen")
        }
    }
}
