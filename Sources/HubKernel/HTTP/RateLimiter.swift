import HTTPTypes
public import Hummingbird
import Synchronization

/// A token bucket per client and bucket name, for the endpoints anyone can call (login, wallet
/// challenges, public resolves). `burst` requests pass at once; after that one per
/// `1 / refillPerSecond` seconds.
///
/// In memory and per process: several `hubd` behind one address would each allow the burst,
/// which is acceptable for a guard against guessing and floods (it is not a quota).
public final class RateLimiter: Sendable {
    public struct Rule: Sendable {
        public var burst: Double
        public var refillPerSecond: Double
        public init(burst: Double, refillPerSecond: Double) {
            self.burst = burst
            self.refillPerSecond = refillPerSecond
        }
        /// A guard against floods from one address on the sign-in routes, not against guessing
        /// (``SignInLimits`` counts failures for that): 300 at once, then 20 a second, so a venue's
        /// crowd behind one address all get in, while one client cannot keep the password hasher
        /// busy alone.
        public static let authentication = Rule(burst: 300, refillPerSecond: 20)
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let buckets = Mutex<[String: Bucket]>([:])
    private let clock = ContinuousClock()
    /// Above this many tracked clients, full (idle) buckets are dropped.
    private let trackedLimit = 50_000

    public init() {}

    /// Takes a token for `key`; returns `nil` when allowed, else how long until one is available.
    public func take(_ key: String, rule: Rule) -> Duration? {
        let now = clock.now
        return buckets.withLock { buckets in
            if buckets.count > trackedLimit {
                buckets = buckets.filter { _, bucket in
                    bucket.tokens + Self.seconds(now - bucket.updated) * rule.refillPerSecond < rule.burst
                }
            }
            var bucket = buckets[key] ?? Bucket(tokens: rule.burst, updated: now)
            bucket.tokens = min(rule.burst, bucket.tokens + Self.seconds(now - bucket.updated) * rule.refillPerSecond)
            bucket.updated = now
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return .milliseconds(Int64(((1 - bucket.tokens) / rule.refillPerSecond * 1000).rounded(.up)))
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// Applies a ``RateLimiter`` rule to every route of a group, keyed by the client's address.
public struct RateLimitMiddleware: RouterMiddleware {
    public typealias Context = HubRequestContext
    let limiter: RateLimiter
    let bucket: String
    let rule: RateLimiter.Rule

    public init(limiter: RateLimiter, bucket: String, rule: RateLimiter.Rule) {
        self.limiter = limiter
        self.bucket = bucket
        self.rule = rule
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let client = context.remoteAddress ?? "local"
        if let wait = limiter.take("\(bucket)|\(client)", rule: rule) {
            let seconds = max(1, wait.components.seconds + (wait.components.attoseconds > 0 ? 1 : 0))
            throw Problem(
                .tooManyRequests,
                code: "rate_limited",
                detail: "Too many requests; retry after \(seconds) s.",
                headers: [.retryAfter: String(seconds)]
            )
        }
        return try await next(request, context)
    }
}
