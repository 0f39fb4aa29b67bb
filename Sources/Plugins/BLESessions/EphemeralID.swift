import HubKernel

/// The anonymous, short-lived id a payee's phone advertises over Bluetooth: 5 random bytes
/// (40 bits, as the Gotchu app expects), written as 10 lower-case hex digits.
///
/// It names nothing by itself: only the hub maps it to a session, and rotation replaces it, so a
/// passer-by who records advertisements cannot follow a payee from one session to the next.
public struct EphemeralID: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 5
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// Parses 10 hex digits (either case; `0x` allowed).
    public init?(hex text: String) {
        guard let bytes = HexText.decode(text) else { return nil }
        self.init(bytes: bytes)
    }

    /// A fresh id from the system's cryptographic generator.
    public static func random() -> EphemeralID {
        var generator = SystemRandomNumberGenerator()
        return EphemeralID(bytes: (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })!
    }

    public var description: String { HexText.encode(bytes) }
}
