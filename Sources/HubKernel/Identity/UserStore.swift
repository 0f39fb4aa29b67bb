/// The SQL of `hub_users`. Synchronous; called on a database worker's thread inside a transaction.
enum UserStore {
    static let select: SQL = "SELECT id, email, display_name, roles, password_hash, created_by, created_at, disabled FROM hub_users"

    /// A user row and its password hash, which never leaves identity.
    struct Row: Sendable {
        var user: User
        var passwordHash: String?
    }

    static func row(_ row: SQLRow) throws -> Row {
        let hash = try row.optionalText("password_hash")
        let user = User(
            id: try row.decode("id"),
            email: try row.optionalText("email"),
            displayName: try row.text("display_name"),
            roles: try Set<Role>(storageText: try row.text("roles")),
            createdAt: try row.timestamp("created_at").date,
            createdBy: try row.decode("created_by"),
            disabled: try row.int("disabled") != 0,
            hasPassword: hash != nil
        )
        return Row(user: user, passwordHash: hash)
    }

    static func find(_ id: UserID, lock: Bool = false, on connection: any SQLConnection) throws -> Row? {
        let lockClause: SQL = lock ? .forUpdate(connection.dialect) : ""
        return try connection.queryFirst(select + " WHERE id = \(id)" + lockClause).map(row)
    }

    static func find(email: String, on connection: any SQLConnection) throws -> Row? {
        try connection.queryFirst(select + " WHERE email = \(email)").map(row)
    }

    /// How many enabled admins exist. Roles are stored as `admin,member`, so the role is matched
    /// between commas on both engines. With `lock`, the admins' rows are locked on PostgreSQL, so
    /// two processes disabling two admins at once cannot both see "another admin remains".
    static func enabledAdminCount(lock: Bool = false, on connection: any SQLConnection) throws -> Int {
        let lockClause: SQL = lock ? .forUpdate(connection.dialect) : ""
        return try connection.query("SELECT id FROM hub_users WHERE disabled = 0 AND (',' || roles || ',') LIKE '%,admin,%'" + lockClause).count
    }

    /// Inserts a user and appends `identity.user.created`. Throws `email_taken` when the address is
    /// in use, checked first and backed by the unique index (another process may insert between).
    static func insert(
        id: UserID = .timeOrdered(),
        email: String?,
        displayName: String,
        roles: Set<Role>,
        passwordHash: String?,
        createdBy: UserID?,
        via: String,
        at now: LedgerTimestamp,
        on connection: any SQLConnection
    ) throws -> User {
        if let email, try find(email: email, on: connection) != nil {
            throw IdentityError(.emailTaken, "\(email) already has an account", field: "email")
        }
        do {
            try connection.execute(
                """
                INSERT INTO hub_users (id, email, display_name, roles, password_hash, created_by, created_at, disabled)
                VALUES (\(id), \(email), \(displayName), \(roles.storageText), \(passwordHash), \(createdBy), \(now), 0)
                """
            )
        } catch let error as DatabaseError where error.kind == .constraint && email != nil {
            throw IdentityError(.emailTaken, "\(email!) already has an account", field: "email")
        }
        let user = User(
            id: id,
            email: email,
            displayName: displayName,
            roles: roles,
            createdAt: now.date,
            createdBy: createdBy,
            disabled: false,
            hasPassword: passwordHash != nil
        )
        try EventLog.append([IdentityEvents.userCreated(user, via: via, at: now)], on: connection)
        return user
    }
}
