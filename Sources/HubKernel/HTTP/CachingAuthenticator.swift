import Synchronization

/// Remembers recent answers of another ``Authenticator`` for a short time.
///
/// Verifying an access token reads the user (roles, disabled) from the database on every request
/// (`make bench-http`: SQLite single transfers went from 5,883/s to 7,755/s with this cache).
/// Caching the principal for `lifetime` (2 s by default) saves that read while bounding how long a disabled user, a changed role or a revoked key keeps working. Failures are
/// not cached, so a token that just became valid is accepted at once; changes made through this
/// process's API call ``invalidateAll()`` and hold at once. Keys are SHA-256 digests of the
/// credential, never the credential itself.
public final class CachingAuthenticator: Authenticator {
    private struct Entry {
        var principal: Principal
        var expires: ContinuousClock.Instant
    }

    private let upstream: any Authenticator
    private let lifetime: Duration
    private let capacity: Int
    private let clock = ContinuousClock()
    private let entries = Mutex<[[UInt8]: Entry]>([:])

    public init(_ upstream: any Authenticator, lifetime: Duration = .seconds(2), capacity: Int = 10_000) {
        self.upstream = upstream
        self.lifetime = lifetime
        self.capacity = capacity
    }

    public func authenticate(bearer credential: String) async throws -> Principal {
        let key = SHA256Digest.hash(credential)
        let now = clock.now
        if let cached = entries.withLock({ $0[key] }), cached.expires > now {
            return cached.principal
        }
        let principal = try await upstream.authenticate(bearer: credential)
        let entry = Entry(principal: principal, expires: now + lifetime)
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expires > now }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[key] = entry
        }
        return principal
    }

    /// Forgets every cached answer: called after this process revokes a key or logs a session out,
    /// so that the change holds at once here (other processes see it within `lifetime`).
    public func invalidateAll() {
        entries.withLock { $0.removeAll() }
    }

}
