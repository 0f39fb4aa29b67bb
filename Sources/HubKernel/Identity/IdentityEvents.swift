import Foundation

/// The events identity appends, each in the transaction of the change it describes.
///
/// | type | when | data |
/// |---|---|---|
/// | `identity.user.created` | a user is created (any path) | `id`, `email`, `display_name`, `roles`, `created_by`, `via` |
/// | `identity.user.disabled` / `.enabled` | a user is disabled or enabled | `id`, `by` |
/// | `identity.user.password_set` | a password is set or changed | `id` |
/// | `identity.api_key.created` / `.revoked` | an API key is created or revoked | `id`, `user_id`, `name`, `scopes`, `prefix` |
/// | `identity.wallet.linked` | a wallet address is linked to a user for the first time | `user_id`, `scheme`, `address` |
/// | `identity.bootstrap.issued` | a bootstrap token is issued | `id` |
/// | `identity.session.reuse_detected` | a used refresh token came back and its family was revoked | `user_id`, `family_id` |
///
/// Sign-ins, refreshes and logouts are not events: they are frequent, they change only session
/// bookkeeping, and the outbox is for facts that subscribers act on. No event ever carries a
/// password hash, a token or a key secret.
enum IdentityEvents {
    static let source = "/identity"

    private static func event(_ type: String, subject: String, at time: LedgerTimestamp, _ data: [String: JSONValue]) -> NewEvent {
        // A map's keys are written as they are (no snake_case): these are already the API's names.
        let text = (try? EventJSON.text(data)) ?? "{}"
        return NewEvent(type: type, source: source, subject: subject, data: text, time: time)
    }

    static func userCreated(_ user: User, via: String, at time: LedgerTimestamp) -> NewEvent {
        event(
            "identity.user.created",
            subject: user.id.description,
            at: time,
            [
                "id": .string(user.id.description), "email": .optional(user.email), "display_name": .string(user.displayName),
                "roles": .strings(user.roles.sorted().map(\.rawValue)), "created_by": .optional(user.createdBy?.description),
                "via": .string(via),
            ]
        )
    }

    static func userDisabled(_ id: UserID, disabled: Bool, by: UserID?, at time: LedgerTimestamp) -> NewEvent {
        event(
            disabled ? "identity.user.disabled" : "identity.user.enabled",
            subject: id.description,
            at: time,
            ["id": .string(id.description), "by": .optional(by?.description)]
        )
    }

    static func rolesChanged(_ id: UserID, from old: Set<Role>, to new: Set<Role>, by: UserID, at time: LedgerTimestamp) -> NewEvent {
        event(
            "identity.user.roles_changed",
            subject: id.description,
            at: time,
            [
                "id": .string(id.description), "by": .string(by.description),
                "from": .strings(old.sorted().map(\.rawValue)), "to": .strings(new.sorted().map(\.rawValue)),
            ]
        )
    }

    static func passwordSet(_ id: UserID, at time: LedgerTimestamp) -> NewEvent {
        event("identity.user.password_set", subject: id.description, at: time, ["id": .string(id.description)])
    }

    static func apiKey(_ key: APIKey, revoked: Bool, at time: LedgerTimestamp) -> NewEvent {
        event(
            revoked ? "identity.api_key.revoked" : "identity.api_key.created",
            subject: key.id.description,
            at: time,
            [
                "id": .string(key.id.description), "user_id": .string(key.userID.description), "name": .string(key.name),
                "scopes": .strings(key.scopes.sorted().map(\.rawValue)), "prefix": .string(key.prefix),
            ]
        )
    }

    static func walletLinked(_ link: WalletLink, at time: LedgerTimestamp) -> NewEvent {
        event(
            "identity.wallet.linked",
            subject: link.userID.description,
            at: time,
            ["user_id": .string(link.userID.description), "scheme": .string(link.scheme), "address": .string(link.address)]
        )
    }

    static func bootstrapIssued(id: String, at time: LedgerTimestamp) -> NewEvent {
        event("identity.bootstrap.issued", subject: id, at: time, ["id": .string(id)])
    }

    static func reuseDetected(userID: UserID, familyID: String, at time: LedgerTimestamp) -> NewEvent {
        event(
            "identity.session.reuse_detected",
            subject: userID.description,
            at: time,
            ["user_id": .string(userID.description), "family_id": .string(familyID)]
        )
    }
}

/// The few JSON shapes identity's events use.
enum JSONValue: Encodable {
    case string(String)
    case strings([String])
    case null

    static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .strings(let values): try container.encode(values)
        case .null: try container.encodeNil()
        }
    }
}
