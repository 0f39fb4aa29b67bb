/// What an API key may be used for. A key carries one or more scopes; a request needs the scope
/// its endpoint names *and* a user whose roles allow it (see ``Principal/allows(scope:)``), so a
/// scope only ever narrows what the key's user could do.
///
/// | scope | grants | roles that may hold it |
/// |---|---|---|
/// | `ledger:read` | read accounts, balances and transfers the user may see | any |
/// | `ledger:write` | create accounts and move money the user may move | any |
/// | `users:read` | list and read users | organiser, admin |
/// | `users:write` | create, disable and enable users (within ``RoleRules``) | organiser, admin |
/// | `events:read` | read and stream the hub-wide event log | admin |
/// | `webhooks:read` | list webhook endpoints and their deliveries | admin |
/// | `webhooks:write` | create, change, delete and redeliver webhooks | admin |
/// | `admin` | everything the user's roles allow, present and future endpoints alike | admin |
public struct APIScope: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    public let rawValue: String
    /// The roles of which a user needs at least one to hold (and use) this scope.
    public let permittedRoles: Set<Role>

    private init(_ raw: String, _ roles: Set<Role>) {
        rawValue = raw
        permittedRoles = roles
    }

    /// Read the user's ledger accounts, balances and transfers.
    public static let ledgerRead = APIScope("ledger:read", [.member, .organiser, .admin])
    /// Create ledger accounts and submit transfers from accounts the user may debit.
    public static let ledgerWrite = APIScope("ledger:write", [.member, .organiser, .admin])
    /// List and read users.
    public static let usersRead = APIScope("users:read", [.organiser, .admin])
    /// Create, disable and enable users, within ``RoleRules``.
    public static let usersWrite = APIScope("users:write", [.organiser, .admin])
    /// Read and stream the hub-wide event log.
    public static let eventsRead = APIScope("events:read", [.admin])
    /// List webhook endpoints and their delivery attempts.
    public static let webhooksRead = APIScope("webhooks:read", [.admin])
    /// Create, change, delete webhook endpoints and redeliver events.
    public static let webhooksWrite = APIScope("webhooks:write", [.admin])
    /// Everything the key's user may do, including endpoints added later.
    public static let admin = APIScope("admin", [.admin])

    /// Every scope, in documentation order.
    public static let all: [APIScope] = [
        .ledgerRead, .ledgerWrite, .usersRead, .usersWrite, .eventsRead, .webhooksRead, .webhooksWrite, .admin,
    ]

    /// Parses a scope name, or throws `unknown_scope` (field `scopes`).
    public init(validating name: String) throws {
        guard let scope = Self.all.first(where: { $0.rawValue == name }) else {
            let known = Self.all.map(\.rawValue).joined(separator: ", ")
            throw IdentityError(.unknownScope, "unknown scope '\(name.prefix(64))'; scopes are \(known)", field: "scopes")
        }
        self = scope
    }

    /// Whether a user holding `roles` may hold this scope.
    public func isPermitted(for roles: Set<Role>) -> Bool { !permittedRoles.isDisjoint(with: roles) }

    public var description: String { rawValue }
    public static func < (lhs: APIScope, rhs: APIScope) -> Bool {
        all.firstIndex(of: lhs)! < all.firstIndex(of: rhs)!
    }

    public static func == (lhs: APIScope, rhs: APIScope) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    public init(from decoder: any Decoder) throws {
        try self.init(validating: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
