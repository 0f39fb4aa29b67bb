/// Checks for free-text fields, shared by users and API keys so every name follows one rule.
enum IdentityValidation {
    /// A trimmed name of 1…`maxLength` characters with no control characters (they would break
    /// log lines and the console's layout).
    static func name(_ input: String, field: String, maxLength: Int = 100) throws -> String {
        let name = input.trimmingASCIIWhitespace()
        guard !name.isEmpty, name.count <= maxLength else {
            throw IdentityError(.invalidField, "\(field) must be 1 to \(maxLength) characters", field: field)
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw IdentityError(.invalidField, "\(field) must not contain control characters", field: field)
        }
        return name
    }

    static func roles(_ roles: Set<Role>) throws -> Set<Role> {
        guard !roles.isEmpty else { throw IdentityError(.invalidField, "a user needs at least one role", field: "roles") }
        return roles
    }
}
