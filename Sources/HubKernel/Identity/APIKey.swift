public import Foundation

/// Identifies an API key: 16 lowercase hex digits, the part of the key between `hub_` and the
/// secret. Not secret itself: it appears in lists and logs.
public struct APIKeyID: Hashable, Sendable, CustomStringConvertible, Codable {
    public let rawValue: String

    /// Accepts exactly 16 lowercase hex digits.
    public init?(_ text: String) {
        guard text.utf8.count == 16, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        rawValue = text
    }

    static func random() -> APIKeyID { APIKeyID(IdentityCrypto.hex(IdentityCrypto.randomBytes(8)))! }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = APIKeyID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an API key id: \(text)"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// An API key as lists show it: never its secret.
public struct APIKey: Sendable, Hashable, Codable {
    public var id: APIKeyID
    /// The user the key acts as; it can never do more than their roles allow.
    public var userID: UserID
    /// What the owner called it ("till 3", "CI"), 1…100 characters.
    public var name: String
    /// What the key may be used for; see ``APIScope``.
    public var scopes: Set<APIScope>
    /// The start of the key (`hub_<id>_` and four characters of the secret) so a person can tell
    /// keys apart; 4 of 43 base64url characters leave 232 bits unknown.
    public var prefix: String
    public var createdAt: Date
    /// The last authentication, to within ``IdentityConfiguration/apiKeyLastUsedResolution``.
    public var lastUsedAt: Date?
    /// When it was revoked; a revoked key never authenticates again.
    public var revokedAt: Date?

    public var isRevoked: Bool { revokedAt != nil }
}

/// A newly created key and its plaintext, which is shown once and never stored.
public struct CreatedAPIKey: Sendable {
    /// The key as lists will show it.
    public var key: APIKey
    /// `hub_<id>_<secret>`, to be sent as `Authorization: Bearer …`.
    public var plaintext: String
}
