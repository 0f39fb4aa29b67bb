/// Tables of the HTTP conventions.
enum HTTPMigrations {
    static let all: [Migration] = [
        Migration(
            "005_idempotency_keys",
            portable: """
                CREATE TABLE hub_idempotency_keys (
                    scope TEXT NOT NULL,
                    key TEXT NOT NULL,
                    request_hash {bytes} NOT NULL,
                    state TEXT NOT NULL,
                    status INTEGER,
                    content_type TEXT,
                    location TEXT,
                    body {bytes},
                    created_at {bigint} NOT NULL,
                    locked_until {bigint} NOT NULL,
                    PRIMARY KEY (scope, key)
                );
                CREATE INDEX hub_idempotency_keys_created ON hub_idempotency_keys (created_at);
                """
        )
    ]
}
