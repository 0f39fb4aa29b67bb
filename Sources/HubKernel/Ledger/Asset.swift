/// An asset's code: 1 to 24 characters of `A–Z`, `0–9`, `-`, `_`, `.` (e.g. `USD`, `EVT-42`, `PEAQ`).
public struct AssetCode: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    public init?(_ raw: String) {
        let utf8 = raw.utf8
        guard (1...24).contains(utf8.count) else { return nil }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                continue
            default: return nil
            }
        }
        rawValue = raw
    }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Something the ledger counts in integer minor units: `scale` is the number of decimal places a
/// person sees (USD has 2, so 5000 units show as 50.00).
public struct Asset: Sendable, Equatable {
    public var code: AssetCode
    public var scale: UInt8
    public var name: String
    /// The system account through which this asset is issued. It has no balance flags, so its
    /// balance goes negative by exactly the amount in circulation.
    public var issuanceAccountID: AccountID
    /// The user who organises the asset (mints it, manages its accounts), if any.
    public var organiserID: String?
    public var createdAt: LedgerTimestamp
    /// The rail that owns the asset (e.g. `localchain` for a chain's currency), if any. Its
    /// accounts, the issuance account included, are moved by that rail alone.
    public var rail: String? = nil

    /// The largest scale: 10^38 still fits in 128 bits.
    public static let maximumScale: UInt8 = 38
}

/// The fields a client gives to create an asset.
public struct NewAsset: Sendable, Equatable {
    public var code: AssetCode
    public var scale: UInt8
    public var name: String
    public var organiserID: String?
    /// The rail creating the asset as its own (see ``Asset/rail``); `nil` for kernel assets.
    public var rail: String?

    public init(code: AssetCode, scale: UInt8, name: String, organiserID: String? = nil, rail: String? = nil) {
        self.code = code
        self.scale = scale
        self.name = name
        self.organiserID = organiserID
        self.rail = rail
    }
}

extension AssetCode: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .text(rawValue) }

    public init(row: SQLRow, _ index: Int) throws {
        let text = try row.text(index)
        guard let code = AssetCode(text) else { throw DatabaseError(.decode, "column \(index): bad asset code '\(text)'") }
        self = code
    }
}
