/// The JSON forms of ledger records used in events (and later the HTTP API): `snake_case`, amounts
/// as strings of integer minor units, ids as UUID strings.
enum LedgerJSON {
    static func transfer(_ t: Transfer) -> String {
        var json = JSONWriter(capacity: 384)
        json.beginObject()
        json.field("id", t.id.description)
        json.field("kind", t.kind.rawValue)
        json.field("debit_account_id", t.debitAccountID.description)
        json.field("credit_account_id", t.creditAccountID.description)
        json.field("amount", String(t.amount))
        json.field("asset", t.asset.rawValue)
        json.field("pending_id", t.pendingID?.description)
        json.key("timeout_seconds")
        json.int(t.timeoutSeconds)
        json.key("linked")
        json.bool(t.linked)
        json.key("ref")
        if let reference = t.reference {
            json.beginObject()
            json.field("rail", reference.rail)
            json.field("type", reference.type)
            json.field("id", reference.id)
            json.endObject()
        } else {
            json.null()
        }
        json.stringMap("metadata", t.metadata)
        json.field("timestamp", t.timestamp.description)
        json.endObject()
        return json.text
    }

    static func account(_ a: Account) -> String {
        var json = JSONWriter(capacity: 384)
        json.beginObject()
        json.field("id", a.id.description)
        json.field("asset", a.asset.rawValue)
        json.field("owner_kind", a.owner.kind.rawValue)
        json.field("owner_id", a.owner.id)
        json.field("code", a.code)
        json.key("flags")
        json.int(a.flags.rawValue)
        json.field("debits_posted", String(a.debitsPosted))
        json.field("credits_posted", String(a.creditsPosted))
        json.field("debits_pending", String(a.debitsPending))
        json.field("credits_pending", String(a.creditsPending))
        json.stringMap("metadata", a.metadata)
        json.field("created_at", a.createdAt.description)
        json.field("rail", a.rail)
        json.endObject()
        return json.text
    }
}
