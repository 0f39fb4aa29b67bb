/// The webhook tables (endpoints, per-endpoint cursors, delivery attempts).
enum WebhookMigrations {
    static let all: [Migration] = []
}
