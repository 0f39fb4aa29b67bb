/// Users: creation under ``RoleRules``, lookup, disabling, passwords, and the first admin.
/// Password sign-in is in `UserService+Login.swift`, the bootstrap token in
/// `UserService+Bootstrap.swift`.
public final class UserService: Sendable {
    let context: IdentityContext
    let passwords: PasswordHasher
    let tokens: TokenService
    let limits: SignInLimits

    init(context: IdentityContext, passwords: PasswordHasher, tokens: TokenService, limits: SignInLimits) {
        self.context = context
        self.passwords = passwords
        self.tokens = tokens
        self.limits = limits
    }

    // MARK: Creating

    /// Creates a user on behalf of `creator`, and appends `identity.user.created`.
    /// - Throws: `forbidden` (the creator lacks `users:write` or ``RoleRules`` refuses the roles),
    ///   `invalid_email`, `invalid_field` (display name, empty roles), `weak_password`, `email_taken`.
    public func create(_ new: NewUser, by creator: Principal) async throws -> User {
        try creator.require(scope: .usersWrite)
        _ = try IdentityValidation.roles(new.roles)
        try RoleRules.checkCreate(new.roles, by: creator.roles)
        return try await insert(new, createdBy: creator.userID, via: "api")
    }

    /// Creates an admin without a creator: the path of `hubd admin create`, which runs with the
    /// server's own access to the database. Works whether or not admins exist.
    public func createAdmin(email: String, password: String, displayName: String = "Administrator") async throws -> User {
        try await insert(NewUser(email: email, displayName: displayName, roles: [.admin], password: password), createdBy: nil, via: "cli")
    }

    /// Validates, hashes the password off the writer (it is slow), then inserts in one transaction.
    func insert(_ new: NewUser, createdBy: UserID?, via: String) async throws -> User {
        let fields = try validate(new)
        let hash = try await new.password.asyncMap { try await passwords.hash($0) }
        let now = context.now()
        return try await context.database.write { connection in
            try UserStore.insert(
                email: fields.email,
                displayName: fields.displayName,
                roles: fields.roles,
                passwordHash: hash,
                createdBy: createdBy,
                via: via,
                at: now,
                on: connection
            )
        }
    }

    func validate(_ new: NewUser) throws -> (email: String, displayName: String, roles: Set<Role>) {
        let email = try EmailAddress.normalise(new.email)
        let displayName = try IdentityValidation.name(new.displayName, field: "display_name")
        let roles = try IdentityValidation.roles(new.roles)
        if let password = new.password { try context.configuration.passwordPolicy.check(password) }
        return (email, displayName, roles)
    }

    // MARK: Reading

    /// The user with `id`, or `nil`.
    public func user(_ id: UserID) async throws -> User? {
        try await context.database.read { try UserStore.find(id, on: $0)?.user }
    }

    /// The user with `email` (normalised first), or `nil`, also for a malformed address.
    public func user(email: String) async throws -> User? {
        guard let email = try? EmailAddress.normalise(email) else { return nil }
        return try await context.database.read { try UserStore.find(email: email, on: $0)?.user }
    }

    /// Users ordered by id, `limit` at most (1…1000), after the cursor `after`. Ids are
    /// time-ordered UUIDs, so this is creation order to the millisecond.
    public func list(after: UserID? = nil, limit: Int = 100) async throws -> [User] {
        let limit = Int64(max(1, min(limit, 1000)))
        return try await context.database.read { connection in
            try connection.query(UserStore.select + " WHERE id > \(after?.description ?? "") ORDER BY id LIMIT \(limit)").map {
                try UserStore.row($0).user
            }
        }
    }

    /// The users `creator` created, ordered by id, with the same paging as ``list(after:limit:)``:
    /// what an organiser sees of the hub's people.
    public func list(createdBy creator: UserID, after: UserID? = nil, limit: Int = 100) async throws -> [User] {
        let limit = Int64(max(1, min(limit, 1000)))
        return try await context.database.read { connection in
            try connection.query(
                UserStore.select + " WHERE created_by = \(creator) AND id > \(after?.description ?? "") ORDER BY id LIMIT \(limit)"
            ).map { try UserStore.row($0).user }
        }
    }

    // MARK: Changing

    /// Replaces a user's roles (admins only, `users:write`). Takes effect at the user's next
    /// request (roles are read at every authentication, within the authenticator's cache window).
    /// - Throws: `forbidden`, `user_not_found`, `last_admin` (it would leave no enabled admin).
    @discardableResult
    public func setRoles(_ id: UserID, to roles: Set<Role>, by caller: Principal) async throws -> User {
        try caller.require(scope: .usersWrite)
        guard caller.isAdmin else { throw IdentityError(.forbidden, "only admins change roles") }
        guard !roles.isEmpty else { throw IdentityError(.invalidField, "a user holds at least one role", field: "roles") }
        let now = context.now()
        return try await context.database.write { connection in
            guard var user = try UserStore.find(id, lock: true, on: connection)?.user else {
                throw IdentityError(.userNotFound, "no user \(id)")
            }
            guard user.roles != roles else { return user }
            if user.isAdmin, !roles.contains(.admin), !user.disabled, try UserStore.enabledAdminCount(lock: true, on: connection) <= 1 {
                throw IdentityError(.lastAdmin, "this is the only enabled admin; make another admin first")
            }
            try connection.execute("UPDATE hub_users SET roles = \(roles.storageText) WHERE id = \(id)")
            try EventLog.append([IdentityEvents.rolesChanged(id, from: user.roles, to: roles, by: caller.userID, at: now)], on: connection)
            user.roles = roles
            return user
        }
    }

    /// Disables a user: their tokens and keys stop working at once and their sessions end.
    /// Idempotent.
    /// - Throws: `forbidden` (no `users:write`, or ``RoleRules`` would not let the caller create
    ///   such a user), `user_not_found`, `last_admin` (it is the only enabled admin).
    @discardableResult
    public func disable(_ id: UserID, by caller: Principal) async throws -> User {
        try await setDisabled(id, true, by: caller)
    }

    /// Re-enables a disabled user. Idempotent.
    @discardableResult
    public func enable(_ id: UserID, by caller: Principal) async throws -> User {
        try await setDisabled(id, false, by: caller)
    }

    private func setDisabled(_ id: UserID, _ disabled: Bool, by caller: Principal) async throws -> User {
        try caller.require(scope: .usersWrite)
        let now = context.now()
        return try await context.database.write { connection in
            guard var user = try UserStore.find(id, lock: true, on: connection)?.user else {
                throw IdentityError(.userNotFound, "no user \(id)")
            }
            guard RoleRules.mayCreate(user.roles, by: caller.roles) else {
                throw IdentityError(.forbidden, "the caller may not manage a user with these roles")
            }
            guard user.disabled != disabled else { return user }
            if disabled, user.isAdmin, try UserStore.enabledAdminCount(lock: true, on: connection) <= 1 {
                throw IdentityError(.lastAdmin, "this is the only enabled admin; create or enable another first")
            }
            try connection.execute("UPDATE hub_users SET disabled = \(disabled) WHERE id = \(id)")
            if disabled { _ = try TokenService.revokeAll(id, at: now, on: connection) }
            try EventLog.append([IdentityEvents.userDisabled(id, disabled: disabled, by: caller.userID, at: now)], on: connection)
            user.disabled = disabled
            return user
        }
    }

    /// Sets (or replaces) a user's password and ends their sessions. Whether the caller may do so
    /// (the user themself after re-authenticating, or an admin) is the caller's decision.
    /// - Throws: `weak_password`, `user_not_found`.
    public func setPassword(_ id: UserID, to password: String) async throws {
        try context.configuration.passwordPolicy.check(password)
        let hash = try await passwords.hash(password)
        let now = context.now()
        try await context.database.write { connection in
            guard try UserStore.find(id, lock: true, on: connection) != nil else { throw IdentityError(.userNotFound, "no user \(id)") }
            try connection.execute("UPDATE hub_users SET password_hash = \(hash) WHERE id = \(id)")
            _ = try TokenService.revokeAll(id, at: now, on: connection)
            try EventLog.append([IdentityEvents.passwordSet(id, at: now)], on: connection)
        }
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
