public import Foundation

/// Identifies a user: a UUID, written in its lowercase text form. The same text is the `owner_id`
/// of the user's ledger accounts (`AccountOwner.user(id.description)`).
public struct UserID: LedgerIdentifier, Codable {
    public let rawValue: UInt128
    public init(rawValue: UInt128) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = UserID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a UUID: \(text)"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Identity's tables keep a user id in its text form (the same text as a user's ledger
    /// `owner_id`), not as the 16 bytes other ledger identifiers bind as: `\(userID)` in a
    /// statement binds this text, and reading a column as `UserID` parses it.
    public var sqlValue: SQLValue { .text(description) }

    public init(row: SQLRow, _ index: Int) throws {
        let text = try row.text(index)
        guard let id = UserID(text) else { throw DatabaseError(.decode, "column \(index): '\(text)' is not a user id") }
        self = id
    }
}

/// A person (or a wallet) known to the hub. Never carries the password hash.
public struct User: Sendable, Hashable, Codable {
    /// Time-ordered (UUIDv7), so ids sort in creation order.
    public var id: UserID
    /// Normalised (trimmed, lowercase). `nil` for users who signed in with a wallet and have no
    /// email: the column is nullable rather than holding a made-up placeholder address, so no
    /// fake address can ever be mailed or collide with a real one.
    public var email: String?
    /// How the console and other users see them.
    public var displayName: String
    /// One or more; see ``Role``.
    public var roles: Set<Role>
    public var createdAt: Date
    /// Who created this user; `nil` for the first admin, CLI-created admins and wallet sign-ups.
    public var createdBy: UserID?
    /// A disabled user cannot sign in; their tokens and keys stop working.
    public var disabled: Bool
    /// Whether the user can sign in with a password (wallet-only users cannot).
    public var hasPassword: Bool

    public init(
        id: UserID,
        email: String?,
        displayName: String,
        roles: Set<Role>,
        createdAt: Date,
        createdBy: UserID?,
        disabled: Bool,
        hasPassword: Bool
    ) {
        self.id = id
        self.email = email
        self.displayName = displayName
        self.roles = roles
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.disabled = disabled
        self.hasPassword = hasPassword
    }

    /// Whether the user holds the admin role.
    public var isAdmin: Bool { roles.contains(.admin) }
}

/// What it takes to create a user with an email address.
public struct NewUser: Sendable {
    /// Validated and normalised to lowercase (see ``EmailAddress``).
    public var email: String
    /// 1…100 characters after trimming; no control characters.
    public var displayName: String
    /// At least one.
    public var roles: Set<Role>
    /// 10…1024 bytes of UTF-8 (see ``PasswordPolicy``). `nil` creates a user who cannot sign in
    /// with a password until one is set with ``UserService/setPassword(_:to:)``.
    public var password: String?

    public init(email: String, displayName: String, roles: Set<Role>, password: String?) {
        self.email = email
        self.displayName = displayName
        self.roles = roles
        self.password = password
    }
}
