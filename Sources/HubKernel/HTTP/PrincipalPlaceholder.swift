// TEMPORARY: replaced by Identity/Principal.swift when the identity branch lands.
public enum Role: String, Sendable, Hashable, Codable, CaseIterable {
    case admin, organiser, member
}

public struct Principal: Sendable, Hashable {
    public var userID: String
    public var roles: Set<Role>
    public var scopes: Set<String>?
    public var isAdmin: Bool { roles.contains(.admin) }
    public func has(_ role: Role) -> Bool { roles.contains(role) }
    public func allows(scope: String) -> Bool { scopes.map { $0.contains(scope) } ?? true }
}

public struct APIScope: Sendable, Hashable {
    public var rawValue: String
    public static let ledgerRead = APIScope(rawValue: "ledger:read")
    public static let ledgerWrite = APIScope(rawValue: "ledger:write")
    public static let eventsRead = APIScope(rawValue: "events:read")
    public static let webhooksWrite = APIScope(rawValue: "webhooks:write")
    public static let usersRead = APIScope(rawValue: "users:read")
    public static let usersWrite = APIScope(rawValue: "users:write")
}
extension Principal {
    public func allows(_ scope: APIScope) -> Bool { allows(scope: scope.rawValue) }
}
extension Principal {
    public init(userID: String, roles: Set<Role>, scopes: Set<String>?, _ marker: Void = ()) {
        self.userID = userID
        self.roles = roles
        self.scopes = scopes
    }
}
