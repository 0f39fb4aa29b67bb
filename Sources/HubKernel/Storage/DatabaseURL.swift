import Foundation

/// Where the hub keeps its data, parsed from `HUB_DATABASE_URL`.
///
/// - `sqlite:PATH` (or `sqlite://PATH`): an SQLite file, created with its folder if missing.
/// - `postgres://…` or `postgresql://…`: a PostgreSQL connection URI, handed to libpq as is.
public enum DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(uri: String)

    /// The embedded default: an SQLite file under `./var/`.
    public static let defaultURL = DatabaseURL.sqlite(path: "./var/hub.sqlite")

    public init(_ text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("postgres://") || trimmed.hasPrefix("postgresql://") {
            self = .postgres(uri: trimmed)
        } else if trimmed.hasPrefix("sqlite:") {
            var path = String(trimmed.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path.removeFirst(2) }
            guard !path.isEmpty else {
                throw DatabaseError(.configuration, "'sqlite:' needs a file path, e.g. sqlite:./var/hub.sqlite")
            }
            self = .sqlite(path: path)
        } else {
            throw DatabaseError(
                .configuration,
                "a database URL must start with sqlite: or postgres:// (got '\(Self.redact(trimmed))')"
            )
        }
    }

    public var dialect: SQLDialect {
        switch self {
        case .sqlite: .sqlite
        case .postgres: .postgres
        }
    }

    /// The URL with any password replaced by `***`, safe to log.
    public var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let uri): Self.redact(uri)
        }
    }

    static func redact(_ uri: String) -> String {
        guard let schemeEnd = uri.range(of: "://"), let at = uri.range(of: "@", range: schemeEnd.upperBound..<uri.endIndex)
        else { return uri }
        let userInfo = uri[schemeEnd.upperBound..<at.lowerBound]
        guard let colon = userInfo.firstIndex(of: ":") else { return uri }
        return String(uri[..<colon]) + ":***" + String(uri[at.lowerBound...])
    }
}
