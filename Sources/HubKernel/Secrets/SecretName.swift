/// Where a secret lives in the vault: a namespace (the kernel part or the rail that owns it) and
/// a name inside it. Both are bound into the seal, so a sealed value copied onto another row does
/// not open.
public struct SecretName: Hashable, Sendable, CustomStringConvertible {
    public let namespace: String
    public let name: String

    /// - Throws: ``SecretsError`` `secret_invalid_name` unless both parts are 1 to 200 bytes of
    ///   printable ASCII without `\0`.
    public init(namespace: String, name: String) throws {
        guard Self.isValid(namespace), Self.isValid(name) else {
            throw SecretsError(.invalidName, "'\(namespace)' / '\(name)' is not a secret name (1 to 200 printable ASCII bytes each)")
        }
        self.namespace = namespace
        self.name = name
    }

    /// For the kernel's own constant names, which are valid by construction.
    init(unchecked namespace: String, _ name: String) {
        self.namespace = namespace
        self.name = name
    }

    public var description: String { "\(namespace)/\(name)" }

    /// The associated data a value is sealed with: a version label, then namespace and name, each
    /// ended by a zero byte (which neither may contain, so no two names give the same bytes).
    var associatedData: [UInt8] {
        Array("hubd-vault-v1".utf8) + [0] + Array(namespace.utf8) + [0] + Array(name.utf8) + [0]
    }

    /// The namespace of the rail `pluginID`: `rail:<id>`, which no kernel namespace starts with.
    static func railNamespace(_ pluginID: String) -> String { "rail:\(pluginID)" }

    /// The vault's own check value: sealed under the current key-encryption key, so opening it tells
    /// whether a key file is the right one before anything else is read.
    static let keyCheck = SecretName(unchecked: "vault", "key-check")

    private static func isValid(_ part: String) -> Bool {
        (1...200).contains(part.utf8.count) && part.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}
