/// Why the secrets vault refused or failed. Codes are stable strings; messages name the file or
/// the secret at fault and never contain key material.
public struct SecretsError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        init(_ raw: String) { rawValue = raw }
        public var description: String { rawValue }

        /// The key file is missing where it must exist, readable by others, malformed or unwritable.
        public static let keyFile = Code("secrets_key_file")
        /// The key file holds a different key from the one the database's secrets are sealed with.
        public static let wrongKey = Code("secrets_wrong_key")
        /// A stored secret does not open: changed, copied from another name, or sealed elsewhere.
        public static let tampered = Code("secret_tampered")
        /// A namespace or name the vault does not accept.
        public static let invalidName = Code("secret_invalid_name")
        /// The vault is used before ``SecretsVault/prepare()`` ran, or a data key was not declared.
        public static let notReady = Code("secrets_not_ready")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// Errors compare by code so tests can match on them without repeating the wording.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension SecretsError: HubError {
    /// Every vault failure is the hub's own state, not the caller's input: nothing a client can fix.
    public var kind: HubErrorKind { .unavailable }
    public var errorCode: String { code.rawValue }
}
