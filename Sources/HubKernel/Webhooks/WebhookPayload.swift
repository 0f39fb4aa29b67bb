/// The request body for an event: the CloudEvents 1.0 structured JSON form of the stored record,
/// plus the hub's `sequence` extension attribute.
///
/// The body is rebuilt from the stored record for every attempt; it is the same bytes each time
/// (the record does not change), so a receiver that stores one attempt's body and compares it
/// with a retry's sees them equal.
enum WebhookPayload {
    static func body(for event: EventRecord) -> [UInt8] {
        var json = JSONWriter(capacity: event.data.utf8.count + 256)
        json.beginObject()
        json.field("specversion", "1.0")
        json.field("id", event.id)
        json.field("source", event.source)
        json.field("type", event.type)
        if let subject = event.subject { json.field("subject", subject) }
        json.field("time", event.time)
        json.field("datacontenttype", "application/json")
        json.key("sequence")
        json.int(event.sequence)
        json.key("data")
        // Stored JSON text, written by the producer in the same transaction as the change.
        json.raw(event.data)
        json.endObject()
        return Array(json.text.utf8)
    }
}
