import ChainKit

/// The bytes a sensor signs to upload a reading or a file (docs/substrate-sensors.md shows them
/// to device makers). The hub recomputes them from the upload and checks the sr25519 signature
/// (schnorrkel context `substrate`, as every Substrate signer uses) against the sensor's key,
/// the account its DID names:
///
/// | bytes | field |
/// |---|---|
/// | 22 | ``tag``: ASCII `hubd-sensor-upload-v1` and a zero byte |
/// | 32 | the sensor's public key (its account id) |
/// | 8 | the counter, unsigned little-endian, 1 to 2^63 - 1 |
/// | 32 | blake2b-256 of the file's bytes (unkeyed, 32-byte output) |
/// | 1 | the length n of the content type, 1 to 127 |
/// | n | the content type, lower-case ASCII (`application/json`) |
///
/// - The tag keeps the signature from being valid for anything else this key might sign (an
///   extrinsic, a sign-in message): none of those start with it.
/// - The counter must grow with every upload of the sensor (a Unix time in milliseconds does):
///   a captured upload sent again is refused, and a sensor that lost its counter can resume
///   from the time.
/// - The hash binds the content and the type binds how it is served, so neither can be swapped
///   under the signature.
struct SensorUploadMessage: Sendable, Equatable {
    static let tag: [UInt8] = Array("hubd-sensor-upload-v1".utf8) + [0]
    /// The largest counter: the database keeps it as a signed 64-bit integer.
    static let maximumCounter = UInt64(Int64.max)

    var sensor: [UInt8]
    var counter: UInt64
    var contentHash: [UInt8]
    var contentType: String

    /// The signed bytes.
    var bytes: [UInt8] {
        var bytes = Self.tag + sensor
        withUnsafeBytes(of: counter.littleEndian) { bytes += $0 }
        bytes += contentHash
        bytes.append(UInt8(contentType.utf8.count))
        bytes += Array(contentType.utf8)
        return bytes
    }

    /// Whether `signature` is the sensor's sr25519 signature of these bytes.
    func verify(_ signature: [UInt8]) -> Bool {
        signature.count == 64 && Sr25519.verify(signature, message: bytes, publicKey: sensor)
    }

    /// A content type as the message carries it: a lower-case `type/subtype` of the characters
    /// RFC 9110 allows in a token, without parameters, 1 to 127 bytes.
    static func isContentType(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let token: (Substring) -> Bool = { part in
            !part.isEmpty
                && part.utf8.allSatisfy { byte in
                    (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || Array("!#$&-^_.+".utf8).contains(byte)
                }
        }
        return (1...127).contains(text.utf8.count) && parts.count == 2 && token(parts[0]) && token(parts[1])
    }
}
