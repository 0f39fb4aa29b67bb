import Foundation

/// A Substrate secret URI: `PHRASE_OR_HEX_SEED` followed by junctions `//hard` and `/soft`, and an
/// optional `///password` (e.g. `bottom drive … walk//Alice///secret`).
public struct SecretURI: Sendable, Hashable {
    /// A BIP39 phrase, or `0x` + 64 hex digits of a raw seed; the well-known dev phrase when the
    /// URI starts with a junction.
    public var phrase: String
    public var junctions: [DerivationJunction]
    public var password: String?

    /// The development phrase Substrate uses for `//Alice`, `//Bob`, … .
    public static let devPhrase = "bottom drive obey lake curtain smoke basket hold race lonely fit walk"

    public init(_ text: String) throws {
        var rest = Substring(text)
        if let range = rest.range(of: "///") {
            password = String(rest[range.upperBound...])
            rest = rest[..<range.lowerBound]
        }
        let firstJunction = rest.firstIndex(of: "/") ?? rest.endIndex
        let phrase = rest[..<firstJunction].trimmingCharacters(in: " ")
        self.phrase = phrase.isEmpty ? Self.devPhrase : phrase
        junctions = try DerivationJunction.parsePath(String(rest[firstJunction...]))
    }
}

/// One step of a derivation path.
public struct DerivationJunction: Sendable, Hashable {
    public var isHard: Bool
    /// The 32-byte chain code this junction contributes.
    public var chainCode: [UInt8]

    /// A junction from its text: a decimal number becomes a little-endian u64, anything else its
    /// SCALE-encoded string; either padded to 32 bytes, or hashed with blake2b-256 when longer.
    public init(_ text: String, hard: Bool) {
        isHard = hard
        let encoded: [UInt8] = UInt64(text).map { $0.scaleEncoded } ?? text.scaleEncoded
        chainCode = encoded.count > 32 ? blake2b256(encoded) : encoded + [UInt8](repeating: 0, count: 32 - encoded.count)
    }

    /// Parses `//a/b//c` into junctions.
    public static func parsePath(_ path: String) throws -> [DerivationJunction] {
        var junctions: [DerivationJunction] = []
        var rest = Substring(path)
        while !rest.isEmpty {
            guard rest.hasPrefix("/") else { throw ChainKitError(.invalidKey, "a derivation path must start with / or //") }
            let hard = rest.hasPrefix("//")
            rest = rest.dropFirst(hard ? 2 : 1)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            let name = rest[..<end]
            guard !name.isEmpty else { throw ChainKitError(.invalidKey, "a junction in '\(path)' is empty") }
            junctions.append(DerivationJunction(String(name), hard: hard))
            rest = rest[end...]
        }
        return junctions
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in characters: Character) -> String {
        String(drop { $0 == characters }.reversed().drop { $0 == characters }.reversed())
    }
}
