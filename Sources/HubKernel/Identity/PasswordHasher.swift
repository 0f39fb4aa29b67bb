import CSodium
public import NIOPosix
import Synchronization

/// Hashes and verifies passwords with argon2id (libsodium's `crypto_pwhash_str_alg`).
///
/// Hashing is deliberately slow and memory-hard, and it blocks: every call runs on an
/// `NIOThreadPool`, never on Swift's cooperative pool (two threads on these machines). The pool's
/// size also bounds memory: at most one `memoryLimit` per pool thread at a time.
///
/// ```swift
/// let hasher = PasswordHasher(parameters: .interactive)
/// let stored = try await hasher.hash("correct horse battery")
/// let ok = try await hasher.verify("correct horse battery", against: stored)
/// ```
public final class PasswordHasher: Sendable {
    /// argon2id cost: passes over memory and memory in bytes.
    public struct Parameters: Sendable, Hashable {
        /// argon2id passes over memory (`opslimit`).
        public var operations: UInt64
        /// argon2id memory in bytes (`memlimit`).
        public var memoryBytes: Int

        public init(operations: UInt64, memoryBytes: Int) {
            self.operations = operations
            self.memoryBytes = memoryBytes
        }

        /// libsodium's INTERACTIVE limits (2 passes, 64 MiB; about 0.1 s here): the production
        /// default. A login is an online, unauthenticated request on a 2-core machine, so each
        /// one must stay cheap enough that a burst of them cannot starve the server. MODERATE
        /// (3 passes, 256 MiB, about 0.7 s) is libsodium's advice for offline secrets, not logins.
        public static var interactive: Parameters {
            Parameters(
                operations: UInt64(crypto_pwhash_argon2id_opslimit_interactive()),
                memoryBytes: crypto_pwhash_argon2id_memlimit_interactive()
            )
        }

        /// libsodium's MODERATE limits (3 passes, 256 MiB), for deployments with memory to spare.
        public static var moderate: Parameters {
            Parameters(
                operations: UInt64(crypto_pwhash_argon2id_opslimit_moderate()),
                memoryBytes: crypto_pwhash_argon2id_memlimit_moderate()
            )
        }

        /// The smallest limits argon2id accepts (1 pass, 8 KiB). For tests only: it keeps the suite
        /// fast and is no protection at all.
        public static var minimum: Parameters {
            Parameters(
                operations: UInt64(crypto_pwhash_argon2id_opslimit_min()),
                memoryBytes: crypto_pwhash_argon2id_memlimit_min()
            )
        }
    }

    /// The cost of new hashes.
    public let parameters: Parameters
    private let threadPool: NIOThreadPool
    /// A real hash of a random password, made on first need. Logins for unknown emails verify
    /// against it so they take as long as logins with a wrong password.
    private let dummy = Mutex<String?>(nil)

    /// - Parameters:
    ///   - parameters: the cost of new hashes; stored hashes with other costs still verify and
    ///     report ``needsRehash(_:)``.
    ///   - threadPool: where hashing runs.
    public init(parameters: Parameters = .interactive, threadPool: NIOThreadPool = .singleton) {
        Sodium.requireReady()
        self.parameters = parameters
        self.threadPool = threadPool
    }

    /// The argon2id string (`$argon2id$v=19$m=…,t=…,p=1$salt$hash`) for `password`.
    /// Does not check the policy; callers do that first.
    public func hash(_ password: String) async throws -> String {
        let parameters = self.parameters
        return try await threadPool.runIfActive { try Self.hashNow(password, parameters) }
    }

    /// Whether `password` matches `stored`. A malformed `stored` string is simply no match.
    public func verify(_ password: String, against stored: String) async throws -> Bool {
        try await threadPool.runIfActive { Self.verifyNow(password, stored) }
    }

    /// Verifies `password` against a throwaway hash of the current cost and returns `false`:
    /// what a login does when there is no hash to check, so that it costs the same time.
    public func verifyAgainstDummy(_ password: String) async throws -> Bool {
        let existing = dummy.withLock { $0 }
        let stored: String
        if let existing {
            stored = existing
        } else {
            let made = try await hash(IdentityCrypto.base64URL(IdentityCrypto.randomBytes(24)))
            stored = dummy.withLock { value in
                if let value { return value }
                value = made
                return made
            }
        }
        _ = try await verify(password, against: stored)
        return false
    }

    /// Whether `stored` was made with other parameters (or another algorithm) than the current
    /// ones, so it should be replaced after the next successful verification. Cheap: it parses
    /// the string only.
    public func needsRehash(_ stored: String) -> Bool {
        crypto_pwhash_str_needs_rehash(stored, parameters.operations, parameters.memoryBytes) != 0
    }

    private static func hashNow(_ password: String, _ parameters: Parameters) throws -> String {
        var out = [CChar](repeating: 0, count: crypto_pwhash_strbytes())
        let bytes = Array(password.utf8) + [0]  // never an empty buffer, so never a null pointer
        let rc = bytes.withUnsafeBufferPointer { input in
            input.withMemoryRebound(to: CChar.self) { chars in
                crypto_pwhash_str_alg(
                    &out,
                    chars.baseAddress!,
                    UInt64(chars.count - 1),
                    parameters.operations,
                    parameters.memoryBytes,
                    crypto_pwhash_alg_argon2id13()
                )
            }
        }
        guard rc == 0 else {
            throw PasswordHasherError(message: "argon2id hashing failed (out of memory for \(parameters.memoryBytes) bytes?)")
        }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func verifyNow(_ password: String, _ stored: String) -> Bool {
        let bytes = Array(password.utf8) + [0]
        return bytes.withUnsafeBufferPointer { input in
            input.withMemoryRebound(to: CChar.self) { chars in
                crypto_pwhash_str_verify(stored, chars.baseAddress!, UInt64(chars.count - 1)) == 0
            }
        }
    }
}

/// The hasher itself failed (not a wrong password): libsodium could not allocate the memory the
/// parameters ask for. Not an ``IdentityError``: it is the server's fault, not the caller's.
public struct PasswordHasherError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
