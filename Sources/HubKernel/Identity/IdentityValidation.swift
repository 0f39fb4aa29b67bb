/// Checks for free-text fields, shared by users and API keys so every name follows one rule.
enum IdentityValidation {
    /// A name people read, by the hub's one rule (``DisplayText``): trimmed, NFC, 1…`maxLength`
    /// characters, nothing invisible, no control or direction-changing characters.
    static func name(_ input: String, field: String, maxLength: Int = 100) throws -> String {
        do {
            return try DisplayText.name(input, field: field, maxLength: maxLength)
        } catch let refusal as DisplayText.Refusal {
            throw IdentityError(.invalidField, refusal.message, field: field)
        }
    }

    static func roles(_ roles: Set<Role>) throws -> Set<Role> {
        guard !roles.isEmpty else { throw IdentityError(.invalidField, "a user needs at least one role", field: "roles") }
        return roles
    }
}
