import Foundation
import HTTPTypes
public import Hummingbird

/// `/v1/users` and `/v1/api-keys`.
///
/// Users: admins create and see anyone; organisers create members and see the users they
/// created; members see themselves. API keys belong to the caller: each user lists, creates and
/// revokes their own, with scopes their roles permit.
public struct UsersController: Sendable {
    let identity: Identity
    /// Called after a change that must stop a credential working at once (a revoked key).
    let credentialsChanged: @Sendable () async -> Void

    public init(identity: Identity, credentialsChanged: @escaping @Sendable () async -> Void = {}) {
        self.identity = identity
        self.credentialsChanged = credentialsChanged
    }

    public func addRoutes(to v1: RouterGroup<HubRequestContext>) {
        v1.post("users", use: createUser)
        v1.get("users", use: listUsers)
        v1.get("users/me", use: me)
        v1.get("users/{id}", use: getUser)
        v1.patch("users/{id}", use: updateUser)
        v1.post("users/{id}/disable", use: disableUser)
        v1.post("users/{id}/enable", use: enableUser)
        v1.post("api-keys", use: createKey)
        v1.get("api-keys", use: listKeys)
        v1.delete("api-keys/{id}", use: revokeKey)
    }

    @Sendable func createUser(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.usersWrite)
        var request = request
        let body = try await request.decodeJSON(as: CreateUserRequest.self, context: context)
        let roles = try Set(
            (body.roles ?? ["member"]).enumerated().map { index, name in
                guard let role = Role(rawValue: name) else { throw Problem.invalid("roles[\(index)]", "One of `admin`, `organiser`, `member`.") }
                return role
            }
        )
        let user = try await identity.users.create(
            NewUser(email: body.email, displayName: body.displayName, roles: roles, password: body.password),
            by: principal
        )
        return try context.json(UserRepresentation(user), status: .created, headers: [.location: "/v1/users/\(user.id)"])
    }

    /// Admins: every user; organisers: the users they created. By id, with `?limit=&cursor=`.
    @Sendable func listUsers(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.usersRead)
        let limit = try request.pageLimit()
        let after = try request.query("cursor") { UserID($0) }
        let users =
            principal.isAdmin
            ? try await identity.users.list(after: after, limit: limit + 1)
            : try await identity.users.list(createdBy: principal.userID, after: after, limit: limit + 1)
        let next = users.count > limit ? users[limit - 1].id.description : nil
        return try context.json(Page(data: users.prefix(limit).map(UserRepresentation.init), nextCursor: next))
    }

    @Sendable func me(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        guard let user = try await identity.users.user(principal.userID) else { throw Problem.notFound("user") }
        return try context.json(UserRepresentation(user))
    }

    @Sendable func getUser(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        guard let id = UserID(try context.parameters.require("id")) else { throw Problem.notFound("user") }
        guard let user = try await identity.users.user(id), Self.canView(user, principal) else { throw Problem.notFound("user") }
        return try context.json(UserRepresentation(user))
    }

    /// `{"roles": [...]}`: admins change a user's roles.
    @Sendable func updateUser(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.usersWrite)
        let user = try await managedUser(context, principal)
        var request = request
        let body = try await request.decodeJSON(as: UpdateUserRequest.self, context: context)
        guard let names = body.roles else { return try context.json(UserRepresentation(user)) }
        let roles = try Set(
            names.enumerated().map { index, name in
                guard let role = Role(rawValue: name) else { throw Problem.invalid("roles[\(index)]", "One of `admin`, `organiser`, `member`.") }
                return role
            }
        )
        let updated = try await identity.users.setRoles(user.id, to: roles, by: principal)
        await credentialsChanged()
        return try context.json(UserRepresentation(updated))
    }

    /// Disables a user: every session, token and key of theirs stops (within the authenticator's
    /// cache window on other instances, at once on this one).
    @Sendable func disableUser(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.usersWrite)
        let user = try await managedUser(context, principal)
        let disabled = try await identity.users.disable(user.id, by: principal)
        await credentialsChanged()
        return try context.json(UserRepresentation(disabled))
    }

    @Sendable func enableUser(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requireScope(.usersWrite)
        let user = try await managedUser(context, principal)
        return try context.json(UserRepresentation(try await identity.users.enable(user.id, by: principal)))
    }

    /// The user `{id}` if the caller may manage them: admins anyone, organisers those they
    /// created; others 404, as for users that do not exist.
    private func managedUser(_ context: HubRequestContext, _ principal: Principal) async throws -> User {
        guard let id = UserID(try context.parameters.require("id")), let user = try await identity.users.user(id),
            principal.isAdmin || (principal.has(.organiser) && user.createdBy == principal.userID)
        else { throw Problem.notFound("user") }
        return user
    }

    static func canView(_ user: User, _ principal: Principal) -> Bool {
        if user.id == principal.userID { return true }
        guard principal.allows(scope: .usersRead) else { return false }
        return principal.isAdmin || (principal.has(.organiser) && user.createdBy == principal.userID)
    }

    @Sendable func createKey(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        // A key cannot mint keys: creating one needs a signed-in session.
        guard principal.scopes == nil else { throw Problem.forbidden("API keys cannot create API keys; sign in to create one.") }
        var request = request
        let body = try await request.decodeJSON(as: CreateAPIKeyRequest.self, context: context)
        let created = try await identity.apiKeys.create(for: principal.userID, name: body.name, scopes: body.scopes)
        return try context.json(
            APIKeyRepresentation(created.key, plaintext: created.plaintext),
            status: .created,
            headers: [.location: "/v1/api-keys/\(created.key.id)"]
        )
    }

    @Sendable func listKeys(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let keys = try await identity.apiKeys.list(for: principal.userID)
        return try context.json(Page(data: keys.map { APIKeyRepresentation($0) }, nextCursor: nil))
    }

    @Sendable func revokeKey(_ request: Request, context: HubRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        guard let id = APIKeyID(try context.parameters.require("id")),
            let key = try await identity.apiKeys.key(id),
            key.userID == principal.userID || (principal.isAdmin && principal.allows(scope: .usersWrite))
        else { throw Problem.notFound("API key") }
        let revoked = try await identity.apiKeys.revoke(id)
        await credentialsChanged()
        return try context.json(APIKeyRepresentation(revoked))
    }
}
