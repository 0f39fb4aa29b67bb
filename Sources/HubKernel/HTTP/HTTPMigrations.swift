/// Tables of the HTTP conventions (idempotency keys).
enum HTTPMigrations {
    static let all: [Migration] = []
}
