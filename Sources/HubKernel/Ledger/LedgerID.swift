/// A 128-bit identifier written as a UUID (`8-4-4-4-12` lowercase hex). Clients choose transfer and
/// account ids, so a retried request carries the same id: that id is the ledger's idempotency key.
public protocol LedgerIdentifier: Hashable, Sendable, Comparable, CustomStringConvertible, LosslessStringConvertible, SQLBindable, SQLDecodable {
    var rawValue: UInt128 { get }
    init(rawValue: UInt128)
}

extension LedgerIdentifier {
    /// A random (version 4) identifier.
    public static func random() -> Self {
        var generator = SystemRandomNumberGenerator()
        var value = UInt128(generator.next() as UInt64) << 64 | UInt128(generator.next() as UInt64)
        // Version 4, variant 10xx, so the text form is a valid UUID.
        value = (value & ~(UInt128(0xF000) << 64)) | (UInt128(0x4000) << 64)
        value = (value & ~(UInt128(0xC000) << 48)) | (UInt128(0x8000) << 48)
        return Self(rawValue: value)
    }

    /// A time-ordered (version 7) identifier: 48 bits of Unix milliseconds, then random bits.
    /// Ids that grow with time land at the right edge of the ledger's indexes, so inserts touch
    /// few pages; prefer them where the client has no id of its own.
    public static func timeOrdered() -> Self {
        var generator = SystemRandomNumberGenerator()
        let milliseconds = UInt128(LedgerClock.system.now().nanoseconds / 1_000_000) & 0xFFFF_FFFF_FFFF
        var value = milliseconds << 80 | (UInt128(generator.next() as UInt64) << 64 | UInt128(generator.next() as UInt64)) & ((1 << 80) - 1)
        value = (value & ~(UInt128(0xF000) << 64)) | (UInt128(0x7000) << 64)
        value = (value & ~(UInt128(0xC000) << 48)) | (UInt128(0x8000) << 48)
        return Self(rawValue: value)
    }

    /// Parses `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (either case) or 32 hex digits.
    public init?(_ description: String) {
        var value: UInt128 = 0
        var digits = 0
        let dashed = description.utf8.count == 36
        for (offset, byte) in description.utf8.enumerated() {
            if dashed && (offset == 8 || offset == 13 || offset == 18 || offset == 23) {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt128(nibble)
            digits += 1
        }
        guard digits == 32 else { return nil }
        self.init(rawValue: value)
    }

    public var description: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            for index in 0..<32 {
                if index == 8 || index == 12 || index == 16 || index == 20 {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                let nibble = UInt8(truncatingIfNeeded: rawValue >> UInt128(124 - index * 4)) & 0xF
                buffer[position] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                position += 1
            }
            return 36
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// 16 big-endian bytes on both backends.
    public var sqlValue: SQLValue { .bytes(rawValue.bigEndianBytes) }

    public init(row: SQLRow, _ index: Int) throws {
        guard let value = UInt128(bigEndianBytes: try row.bytes(index)) else {
            throw DatabaseError(.decode, "column \(index): an identifier must be 16 bytes")
        }
        self.init(rawValue: value)
    }
}

/// Identifies a ledger account.
public struct AccountID: LedgerIdentifier {
    public let rawValue: UInt128
    public init(rawValue: UInt128) { self.rawValue = rawValue }
}

/// Identifies a transfer. Chosen by the client; the ledger's idempotency key.
public struct TransferID: LedgerIdentifier {
    public let rawValue: UInt128
    public init(rawValue: UInt128) { self.rawValue = rawValue }
}

/// Identifies a rail's own row (a session, a lock) in the UUID form its API shows.
/// `RecordID.timeOrdered()` suits rows the hub creates: inserts then land at the right edge of the
/// table's key index instead of on a random page of it.
public struct RecordID: LedgerIdentifier {
    public let rawValue: UInt128
    public init(rawValue: UInt128) { self.rawValue = rawValue }
}
