/// Why a scanner's bytes held no session id.
public struct AdvertisementParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}

extension Advertisement {
    /// One AD structure as received.
    public struct Structure: Sendable, Equatable {
        public var type: UInt8
        public var data: ArraySlice<UInt8>
    }

    /// Splits advertising data (optionally followed by scan-response data: the two concatenate
    /// into one sequence of structures) into its AD structures.
    ///
    /// A zero length octet ends the significant part, and what follows must be zero padding. A
    /// structure that claims more octets than remain is truncated data and is refused rather than
    /// guessed at.
    public static func structures(in bytes: [UInt8]) throws(AdvertisementParseError) -> [Structure] {
        guard !bytes.isEmpty else { throw AdvertisementParseError(reason: "the advertising data is empty") }
        var structures: [Structure] = []
        var offset = 0
        while offset < bytes.count {
            let length = Int(bytes[offset])
            if length == 0 {
                // Padding: a scan response may follow a padded 31-octet advertisement, so skip
                // zeros and go on; anything else after a zero is a structure again.
                offset += 1
                continue
            }
            guard offset + length < bytes.count else {
                throw AdvertisementParseError(
                    reason:
                        "the AD structure at offset \(offset) claims \(length) octets but only \(bytes.count - offset - 1) follow (truncated data)"
                )
            }
            structures.append(Structure(type: bytes[offset + 1], data: bytes[(offset + 2)..<(offset + 1 + length)]))
            offset += 1 + length
        }
        guard !structures.isEmpty else { throw AdvertisementParseError(reason: "the advertising data holds only padding") }
        return structures
    }

    /// The session id in what a scanner received: service data for `FEED` carrying 5 octets, or,
    /// as the existing app advertises, a local name `GOTCHU` + 10 hex digits beside `FEED` in a
    /// service UUID list (the app accepts the name only then, and so does this).
    public static func ephemeralID(in bytes: [UInt8]) throws(AdvertisementParseError) -> EphemeralID {
        let structures = try structures(in: bytes)
        var listsService = false
        var name: String?
        for structure in structures {
            guard let type = ADType(rawValue: structure.type) else { continue }
            switch type {
            case .serviceData16BitUUID, .serviceData32BitUUID, .serviceData128BitUUID:
                let width = type.uuidWidth!
                guard structure.data.count >= width else {
                    throw AdvertisementParseError(reason: "service data shorter than its \(width * 8)-bit UUID")
                }
                guard isServiceUUID(structure.data.prefix(width)) else { continue }
                let payload = Array(structure.data.dropFirst(width))
                guard let eid = EphemeralID(bytes: payload) else {
                    throw AdvertisementParseError(
                        reason: "service data for 0xFEED carries \(payload.count) octets; a session id is \(EphemeralID.byteCount)"
                    )
                }
                return eid
            case .incomplete16BitUUIDs, .complete16BitUUIDs, .incomplete32BitUUIDs, .complete32BitUUIDs, .incomplete128BitUUIDs,
                .complete128BitUUIDs:
                let width = type.uuidWidth!
                guard structure.data.count % width == 0 else {
                    throw AdvertisementParseError(
                        reason: "a \(width * 8)-bit UUID list of \(structure.data.count) octets (not a multiple of \(width))"
                    )
                }
                for offset in stride(from: 0, to: structure.data.count, by: width)
                where isServiceUUID(structure.data.dropFirst(offset).prefix(width)) {
                    listsService = true
                }
            case .completeLocalName, .shortenedLocalName:
                name = String(decoding: structure.data, as: UTF8.self)
            case .flags:
                continue
            }
        }
        if let name, name.hasPrefix(localNamePrefix) {
            let digits = String(name.dropFirst(localNamePrefix.count))
            guard listsService else {
                throw AdvertisementParseError(reason: "a GOTCHU local name without the 0xFEED service UUID")
            }
            guard let eid = EphemeralID(hex: digits), !digits.hasPrefix("0x"), !digits.hasPrefix("0X") else {
                throw AdvertisementParseError(reason: "the local name \"\(name)\" does not end in 10 hex digits")
            }
            return eid
        }
        throw AdvertisementParseError(reason: "no 0xFEED service data and no GOTCHU local name in the advertising data")
    }

    /// Whether `bytes` (a UUID as it appears on air, little-endian) is the session service in any of
    /// its three spellings: 16-bit `FEED`, 32-bit `0000FEED`, or the full 128-bit UUID built on the
    /// Bluetooth Base UUID (Core Specification Vol 3, Part B, §2.5.1: they are one UUID).
    static func isServiceUUID(_ bytes: ArraySlice<UInt8>) -> Bool {
        switch bytes.count {
        case 2: bytes.elementsEqual([0xED, 0xFE])
        case 4: bytes.elementsEqual([0xED, 0xFE, 0x00, 0x00])
        case 16: bytes.elementsEqual(serviceUUID128LittleEndian)
        default: false
        }
    }

    /// `0000FEED-0000-1000-8000-00805F9B34FB` as it appears on air: the 16 octets little-endian.
    static let serviceUUID128LittleEndian: [UInt8] =
        [0xFB, 0x34, 0x9B, 0x5F, 0x80, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00, 0xED, 0xFE, 0x00, 0x00]
}
