/// Who may create (and so manage) whom. A pure function of roles, so the HTTP layer, the console
/// and tests all ask the same question.
///
/// - Admins may create users of any role.
/// - Organisers may create members only.
/// - Members create nobody.
///
/// A creator with several roles gets the widest of them. The same rule decides who may disable or
/// re-enable a user: you may manage whom you could have created.
public enum RoleRules {
    /// Whether a holder of `creator` roles may create a user holding `newRoles`.
    ///
    /// ```swift
    /// RoleRules.mayCreate([.member], by: [.organiser])   // true
    /// RoleRules.mayCreate([.organiser], by: [.organiser]) // false
    /// ```
    public static func mayCreate(_ newRoles: Set<Role>, by creator: Set<Role>) -> Bool {
        guard !newRoles.isEmpty else { return false }
        if creator.contains(.admin) { return true }
        if creator.contains(.organiser) { return newRoles == [.member] }
        return false
    }

    /// Throws `forbidden` unless ``mayCreate(_:by:)`` allows it.
    public static func checkCreate(_ newRoles: Set<Role>, by creator: Set<Role>) throws {
        guard mayCreate(newRoles, by: creator) else {
            let wanted = newRoles.sorted().map(\.rawValue).joined(separator: ", ")
            let holder = creator.isEmpty ? "no role" : creator.sorted().map(\.rawValue).joined(separator: ", ")
            throw IdentityError(.forbidden, "a user with \(holder) may not create a user with roles [\(wanted)]", field: "roles")
        }
    }
}
