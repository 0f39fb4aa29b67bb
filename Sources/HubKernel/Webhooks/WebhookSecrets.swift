/// Webhook signing secrets, kept in the secrets vault (namespace `webhooks`, names
/// `<endpoint id>/current` and `<endpoint id>/previous`), not in the endpoint's row.
///
/// The endpoint row keeps `previous_secret_expires_at`; its `secret` column is `''` and its
/// `previous_secret` NULL once the secrets are in the vault. A row whose `secret` column is not
/// empty was written before the vault (or by an older hubd during a rolling upgrade): it is read
/// as it is, and moved into the vault at the next start (``moveIntoVault(_:)``).
enum WebhookSecrets {
    static let namespace = "webhooks"

    static func current(_ id: WebhookEndpointID) -> SecretName { SecretName(unchecked: namespace, "\(id)/current") }
    static func previous(_ id: WebhookEndpointID) -> SecretName { SecretName(unchecked: namespace, "\(id)/previous") }

    /// Stores the secret of a new endpoint, in the caller's transaction.
    static func store(_ secret: String, for id: WebhookEndpointID, vault: SecretsVault, on connection: any SQLConnection) throws {
        try vault.write(Array(secret.utf8), as: current(id), on: connection)
    }

    /// Makes `secret` current and the current one previous, in the caller's transaction.
    static func rotate(to secret: String, for id: WebhookEndpointID, legacy row: SQLRow, vault: SecretsVault, on connection: any SQLConnection) throws
    {
        let old = try currentValue(id, row: row, vault: vault, on: connection)
        try vault.write(Array(old.utf8), as: previous(id), on: connection)
        try vault.write(Array(secret.utf8), as: current(id), on: connection)
    }

    /// Removes an endpoint's secrets, in the caller's transaction.
    static func remove(_ id: WebhookEndpointID, vault: SecretsVault, on connection: any SQLConnection) throws {
        try vault.remove(current(id), on: connection)
        try vault.remove(previous(id), on: connection)
    }

    /// The secrets a request is signed with: the current one, and the previous one while its
    /// overlap lasts. `row` has the columns `id`, `secret`, `previous_secret` and
    /// `previous_secret_expires_at`.
    static func signing(_ row: SQLRow, now: LedgerTimestamp, vault: SecretsVault, on connection: any SQLConnection) throws -> [String] {
        let id: WebhookEndpointID = try row.decode("id")
        var secrets = [try currentValue(id, row: row, vault: vault, on: connection)]
        if let expires = try row.decode("previous_secret_expires_at", as: LedgerTimestamp?.self), expires > now {
            if let old = try row.optionalText("previous_secret") {
                secrets.append(old)
            } else if let old = try vault.read(previous(id), on: connection) {
                secrets.append(String(decoding: old, as: UTF8.self))
            }
        }
        return secrets
    }

    static func currentValue(_ id: WebhookEndpointID, row: SQLRow, vault: SecretsVault, on connection: any SQLConnection) throws -> String {
        let column = try row.text("secret")
        if !column.isEmpty { return column }
        guard let value = try vault.read(current(id), on: connection) else {
            throw SecretsError(.tampered, "webhook endpoint \(id) has no secret in the vault")
        }
        return String(decoding: value, as: UTF8.self)
    }

    /// Moves every plaintext secret left in `hub_webhook_endpoints` into the vault, in one
    /// transaction (all endpoints or none), and empties the columns. Run at start-up after the
    /// vault is prepared; returns how many endpoints moved.
    @discardableResult
    static func moveIntoVault(_ vault: SecretsVault) async throws -> Int {
        try await vault.database.write { connection in
            let rows = try connection.query(
                "SELECT id, secret, previous_secret FROM hub_webhook_endpoints WHERE secret <> '' OR previous_secret IS NOT NULL\(SQL.forUpdate(connection.dialect))"
            )
            for row in rows {
                let id: WebhookEndpointID = try row.decode("id")
                let secret = try row.text("secret")
                if !secret.isEmpty { try vault.write(Array(secret.utf8), as: current(id), on: connection) }
                if let old = try row.optionalText("previous_secret") { try vault.write(Array(old.utf8), as: previous(id), on: connection) }
                try connection.execute("UPDATE hub_webhook_endpoints SET secret = '', previous_secret = NULL WHERE id = \(id)")
            }
            return rows.count
        }
    }
}
