/// What a user is in the hub. Roles are additive: a user holds one or more.
///
/// - `admin` runs the hub: users of every role, API keys, webhooks, plugins.
/// - `organiser` runs events and shops: creates members, reads users.
/// - `member` pays and gets paid with their own accounts.
public enum Role: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case admin
    case organiser
    case member

    /// Parses a role name, or throws `unknown_role`.
    public init(validating name: String) throws {
        guard let role = Role(rawValue: name) else {
            let known = Role.allCases.map(\.rawValue).joined(separator: ", ")
            throw IdentityError(.unknownRole, "unknown role '\(name)'; roles are \(known)", field: "roles")
        }
        self = role
    }

    /// Admin first: a stable order for storage and display.
    public static func < (lhs: Role, rhs: Role) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

extension Set where Element == Role {
    /// The stored form: role names in ``Role`` order, comma-separated (`admin,member`).
    var storageText: String { sorted().map(\.rawValue).joined(separator: ",") }

    /// Reads the stored form; unknown names are a decode error (the database was written by a newer hubd).
    init(storageText text: String) throws {
        var roles = Set<Role>()
        for name in text.split(separator: ",") {
            guard let role = Role(rawValue: String(name)) else {
                throw DatabaseError(.decode, "unknown role '\(name)' in hub_users.roles")
            }
            roles.insert(role)
        }
        self = roles
    }
}
