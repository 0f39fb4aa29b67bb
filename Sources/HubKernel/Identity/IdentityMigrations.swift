/// The identity tables (users, sessions, API keys, wallet sign-in).
enum IdentityMigrations {
    static let all: [Migration] = []
}
