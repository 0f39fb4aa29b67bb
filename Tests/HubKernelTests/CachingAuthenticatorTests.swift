import HTTPTypes
import HubKernel
import Synchronization
import Testing

@Suite("caching authenticator")
struct CachingAuthenticatorTests {
    /// Counts calls; accepts "good", refuses anything else.
    final class CountingAuthenticator: Authenticator {
        let calls = Mutex(0)
        func authenticate(bearer credential: String) async throws -> Principal {
            calls.withLock { $0 += 1 }
            guard credential == "good" else { throw Problem(.unauthorized, code: "invalid_token", detail: "no") }
            return Principal(userID: UserID(rawValue: 7), roles: [.member], credential: .accessToken(tokenID: "t"), scopes: nil)
        }
    }

    @Test("answers are reused within the lifetime; failures are not cached; invalidateAll forgets")
    func caching() async throws {
        let upstream = CountingAuthenticator()
        let cache = CachingAuthenticator(upstream, lifetime: .seconds(3600))
        _ = try await cache.authenticate(bearer: "good")
        _ = try await cache.authenticate(bearer: "good")
        #expect(upstream.calls.withLock { $0 } == 1)
        for _ in 0..<2 { await #expect(throws: Problem.self) { try await cache.authenticate(bearer: "bad") } }
        #expect(upstream.calls.withLock { $0 } == 3)
        cache.invalidateAll()
        _ = try await cache.authenticate(bearer: "good")
        #expect(upstream.calls.withLock { $0 } == 4)
    }

    @Test("a zero lifetime asks every time")
    func expiry() async throws {
        let upstream = CountingAuthenticator()
        let cache = CachingAuthenticator(upstream, lifetime: .zero)
        _ = try await cache.authenticate(bearer: "good")
        _ = try await cache.authenticate(bearer: "good")
        #expect(upstream.calls.withLock { $0 } == 2)
    }
}
