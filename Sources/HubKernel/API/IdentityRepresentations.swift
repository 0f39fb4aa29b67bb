import Foundation

/// The JSON shapes of identity records in the API.
struct UserRepresentation: Encodable, Sendable {
    var id: String
    var email: String?
    var displayName: String
    var roles: [String]
    var createdAt: String
    var createdBy: String?
    var disabled: Bool

    init(_ user: User) {
        id = user.id.description
        email = user.email
        displayName = user.displayName
        roles = user.roles.map(\.rawValue).sorted()
        createdAt = RFC3339.string(user.createdAt)
        createdBy = user.createdBy?.description
        disabled = user.disabled
    }
}

/// What a sign-in returns: an access token for `Authorization: Bearer`, and a refresh token to
/// exchange for a new pair (each refresh token works once).
struct SessionRepresentation: Encodable, Sendable {
    var tokenType = "Bearer"
    var accessToken: String
    var expiresIn: Int
    var refreshToken: String
    var refreshTokenExpiresAt: String
    var user: UserRepresentation?

    init(_ tokens: TokenPair, user: User?, now: Date = Date()) {
        accessToken = tokens.accessToken
        expiresIn = max(0, Int(tokens.accessTokenExpiresAt.timeIntervalSince(now).rounded()))
        refreshToken = tokens.refreshToken
        refreshTokenExpiresAt = RFC3339.string(tokens.refreshTokenExpiresAt)
        self.user = user.map(UserRepresentation.init)
    }
}

struct APIKeyRepresentation: Encodable, Sendable {
    var id: String
    var name: String
    var scopes: [String]
    /// The first characters of the key, to recognise it in a list.
    var prefix: String
    var createdAt: String
    var lastUsedAt: String?
    var revokedAt: String?
    /// The whole key: present only in the answer to its creation.
    var key: String?

    init(_ key: APIKey, plaintext: String? = nil) {
        id = key.id.description
        name = key.name
        scopes = key.scopes.map(\.rawValue).sorted()
        prefix = key.prefix
        createdAt = RFC3339.string(key.createdAt)
        lastUsedAt = key.lastUsedAt.map(RFC3339.string)
        revokedAt = key.revokedAt.map(RFC3339.string)
        self.key = plaintext
    }
}

struct WalletChallengeRepresentation: Encodable, Sendable {
    var nonce: String
    var scheme: String
    var address: String
    /// The exact text to sign.
    var message: String
    var issuedAt: String
    var expiresAt: String

    init(_ challenge: WalletChallenge) {
        nonce = challenge.nonce
        scheme = challenge.scheme
        address = challenge.address
        message = challenge.message
        issuedAt = RFC3339.string(challenge.issuedAt)
        expiresAt = RFC3339.string(challenge.expiresAt)
    }
}

struct LoginRequest: Decodable, Sendable {
    var email: String
    var password: String
}

struct RefreshRequest: Decodable, Sendable {
    var refreshToken: String
}

struct BootstrapRequest: Decodable, Sendable {
    var token: String
    var email: String
    var password: String
    var displayName: String?
}

struct DevLoginRequest: Decodable, Sendable {
    var email: String
}

struct WalletChallengeRequest: Decodable, Sendable {
    var scheme: String
    var address: String
}

struct WalletLoginRequest: Decodable, Sendable {
    /// The challenge answered; may be left out when `message` names it.
    var nonce: String?
    /// Hex, with or without `0x`.
    var signature: String
    /// The EIP-4361 message the wallet signed, when the client composed its own around the
    /// challenge's nonce (Sign-In with Ethereum libraries do); otherwise the challenge's message
    /// is the one signed.
    var message: String?
}

struct CreateUserRequest: Decodable, Sendable {
    var email: String
    var displayName: String
    var roles: [String]?
    var password: String?
}

/// `PATCH /v1/users/{id}`: what an admin may change of a user.
struct UpdateUserRequest: Decodable, Sendable {
    var roles: [String]?
}

struct CreateAPIKeyRequest: Decodable, Sendable {
    var name: String
    var scopes: [String]
}
