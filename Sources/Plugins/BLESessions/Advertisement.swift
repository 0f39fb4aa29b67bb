/// Bluetooth LE advertising data for a session, and the reverse: finding a session's
/// ``EphemeralID`` in what a scanner received.
///
/// Advertising data is a sequence of AD structures (Bluetooth Core Specification, Vol 3, Part C,
/// §11): one length octet (counting the type and the data), one AD-type octet, then the data.
/// A length of zero ends the significant part; legacy advertising PDUs pad the rest of their 31
/// octets with zeros. Multi-octet values, 16-bit UUIDs included, are little-endian
/// (Core Specification Supplement, Part A).
public enum Advertisement {
    /// The 16-bit service UUID the Gotchu app advertises and filters on
    /// (`0000FEED-0000-1000-8000-00805F9B34FB`).
    public static let serviceUUID16: UInt16 = 0xFEED
    public static let serviceUUID = "0000FEED-0000-1000-8000-00805F9B34FB"
    /// The local-name form of the existing app: `GOTCHU` followed by the EID's 10 hex digits.
    public static let localNamePrefix = "GOTCHU"
    /// A legacy advertising PDU carries at most 31 octets of advertising data.
    public static let legacyCapacity = 31

    /// AD types used here (Assigned Numbers, §2.3).
    public enum ADType: UInt8, Sendable {
        case flags = 0x01
        case incomplete16BitUUIDs = 0x02
        case complete16BitUUIDs = 0x03
        case incomplete32BitUUIDs = 0x04
        case complete32BitUUIDs = 0x05
        case incomplete128BitUUIDs = 0x06
        case complete128BitUUIDs = 0x07
        case shortenedLocalName = 0x08
        case completeLocalName = 0x09
        case serviceData16BitUUID = 0x16
        case serviceData32BitUUID = 0x20
        case serviceData128BitUUID = 0x21

        /// Octets of the UUIDs this type carries: the leading UUID of service data, or each entry
        /// of a UUID list.
        var uuidWidth: Int? {
            switch self {
            case .incomplete16BitUUIDs, .complete16BitUUIDs, .serviceData16BitUUID: 2
            case .incomplete32BitUUIDs, .complete32BitUUIDs, .serviceData32BitUUID: 4
            case .incomplete128BitUUIDs, .complete128BitUUIDs, .serviceData128BitUUID: 16
            case .flags, .shortenedLocalName, .completeLocalName: nil
            }
        }
    }

    /// LE General Discoverable Mode (bit 1) and BR/EDR Not Supported (bit 2).
    static let flags: UInt8 = 0x06

    /// Flags, the complete list of 16-bit service UUIDs (`FEED`), and service data for `FEED`
    /// carrying the 5 EID bytes: 16 octets, so a scan response stays free.
    public static func serviceData(for eid: EphemeralID) -> [UInt8] {
        structure(.flags, [flags]) + structure(.complete16BitUUIDs, uuidBytes) + structure(.serviceData16BitUUID, uuidBytes + eid.bytes)
    }

    /// Flags, the `FEED` UUID list and the complete local name `GOTCHU<eid>`: what the existing
    /// app advertises (it sets the name and the service UUID; iOS adds the flags).
    public static func localNameData(for eid: EphemeralID) -> [UInt8] {
        structure(.flags, [flags]) + structure(.complete16BitUUIDs, uuidBytes) + structure(.completeLocalName, Array(localName(for: eid).utf8))
    }

    public static func localName(for eid: EphemeralID) -> String { localNamePrefix + eid.description }

    private static var uuidBytes: [UInt8] { [UInt8(serviceUUID16 & 0xFF), UInt8(serviceUUID16 >> 8)] }

    private static func structure(_ type: ADType, _ data: [UInt8]) -> [UInt8] {
        precondition(data.count < 255, "an AD structure holds at most 254 data octets")
        return [UInt8(data.count + 1), type.rawValue] + data
    }
}
