import Synchronization

/// The wallet signature schemes this hub accepts, filled by rails as they start. Thread-safe:
/// registration and lookup take a lock and never suspend.
public final class WalletSchemeRegistry: Sendable {
    private let verifiers = Mutex<[String: any WalletSignatureVerifier]>([:])

    public init() {}

    /// Scheme names appear in sign-in messages and URLs: lowercase letters, digits, `-`.
    private static let nameBytes = Set("abcdefghijklmnopqrstuvwxyz0123456789-".utf8)

    /// Adds `verifier` under its scheme. Registering a scheme twice is a programming error (two
    /// rails claiming one name) and stops the process.
    public func register(_ verifier: any WalletSignatureVerifier) {
        let name = verifier.scheme
        precondition(
            !name.isEmpty && name.utf8.count <= 32 && name.utf8.allSatisfy { Self.nameBytes.contains($0) },
            "wallet scheme '\(name)' must be 1 to 32 of a-z, 0-9 and -"
        )
        verifiers.withLock { table in
            precondition(table[verifier.scheme] == nil, "wallet scheme '\(verifier.scheme)' registered twice")
            table[verifier.scheme] = verifier
        }
    }

    /// The verifier for `scheme`, if a rail registered one.
    public func verifier(for scheme: String) -> (any WalletSignatureVerifier)? {
        verifiers.withLock { $0[scheme] }
    }

    /// The registered scheme names, sorted.
    public var schemes: [String] { verifiers.withLock { $0.keys.sorted() } }

    /// The verifier for `scheme`, or `unknown_scheme`.
    func require(_ scheme: String) throws -> any WalletSignatureVerifier {
        guard let verifier = verifier(for: scheme) else {
            let known = schemes.isEmpty ? "none are registered" : "known: " + schemes.joined(separator: ", ")
            throw IdentityError(.unknownScheme, "unknown wallet scheme '\(scheme.prefix(32))' (\(known))", field: "scheme")
        }
        return verifier
    }
}
