import Foundation

/// A plugin's `config` object from `plugins.json`.
///
/// Plugins decode it into their own `Decodable` struct with ``decode(_:)``; a missing, mistyped or
/// invalid member becomes a ``PluginConfigError`` naming the member, which start-up reports with
/// the file and plugin.
public struct PluginConfig: Sendable {
    /// The object's JSON text (`{}` when the entry has no `config`).
    public let json: String

    public init(json: String = "{}") {
        self.json = json
    }

    /// Decodes the object with `snake_case` member names. Unknown members, at any depth, are
    /// refused (``StrictDecoding``, the rule request bodies follow) so that a misspelt option does
    /// not silently keep its default; `knownKeys`, when given, lists the top-level options in the
    /// message.
    public func decode<Config: Decodable>(_ type: Config.Type, knownKeys: Set<String>? = nil) throws -> Config {
        do {
            return try StrictDecoding.decode(Config.self, from: Array(json.utf8))
        } catch let unknown as StrictDecoding.UnknownMembers {
            let known = knownKeys.map { " (known: \($0.sorted().joined(separator: ", ")))" } ?? ""
            throw PluginConfigError(
                field: unknown.field,
                message: "unknown option\(unknown.members.first?.suggestion.map { "; did you mean `\($0)`?" } ?? "")\(known)"
            )
        } catch let error as DecodingError {
            throw PluginConfigError(error)
        }
    }
}

/// An invalid plugin configuration: which member, and what is wrong with it.
public struct PluginConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The member's path inside `config`, e.g. `session_ttl_seconds` or `chains[1].rpc_url`.
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }

    init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(field: ProblemMiddleware.path(context.codingPath + [key]), message: "is required")
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            self.init(field: ProblemMiddleware.path(context.codingPath), message: "has the wrong type")
        case .dataCorrupted(let context):
            self.init(field: ProblemMiddleware.path(context.codingPath), message: context.debugDescription)
        @unknown default:
            self.init(field: "config", message: "is invalid")
        }
    }
}
