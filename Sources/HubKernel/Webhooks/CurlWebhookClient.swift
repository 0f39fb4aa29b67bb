import CCurl
import Foundation
import NIOPosix
import Synchronization

/// Webhook requests over libcurl, one easy handle per request.
///
/// `curl_easy_perform` blocks for as long as the receiver takes (up to the timeout), so it runs on
/// a thread pool of this client's own, never on Swift's cooperative pool: with two cores, two slow
/// receivers would otherwise stall every task in the process. The pool has as many threads as
/// endpoints the dispatcher works at once, so one slow receiver does not hold up another.
///
/// ```swift
/// let client = CurlWebhookClient(threadCount: configuration.maxConcurrentEndpoints)
/// let response = try await client.post(url: "https://example.com/hook", headers: [:], body: body, timeout: .seconds(10))
/// ```
public final class CurlWebhookClient: WebhookHTTPClient {
    /// Response bytes kept for the delivery record; the transfer stops reading after this many.
    public static let maxResponseBytes = 4096

    /// `curl_global_init` is not thread-safe and must run once before any handle is made; a
    /// static `let` is initialised exactly once, on first use, under a lock.
    static let globalInit: CURLcode = hub_curl_global_init()

    private let threadPool: NIOThreadPool
    private let userAgent: String
    private let addressPolicy: WebhookAddressPolicy

    /// - Parameters:
    ///   - threadCount: requests that can be in flight at once (more wait for a thread).
    ///   - userAgent: the `User-Agent` header.
    ///   - addressPolicy: which addresses may be connected to; each request's host is resolved,
    ///     every address checked, and the connection pinned to the checked addresses.
    public init(
        threadCount: Int = WebhookConfiguration().maxConcurrentEndpoints,
        userAgent: String = "hubd-webhooks/1",
        addressPolicy: WebhookAddressPolicy = WebhookAddressPolicy()
    ) {
        threadPool = NIOThreadPool(numberOfThreads: max(1, threadCount))
        threadPool.start()
        self.userAgent = userAgent
        self.addressPolicy = addressPolicy
    }

    deinit {
        threadPool.shutdownGracefully { _ in }
    }

    public func post(url: String, headers: [String: String], body: [UInt8], timeout: Duration) async throws -> WebhookHTTPResponse {
        guard Self.globalInit == CURLE_OK else {
            throw WebhookError(.transportFailed, "curl_global_init failed: \(String(cString: curl_easy_strerror(Self.globalInit)))")
        }
        try Task.checkCancellation()
        let request = CurlRequest(url: url, headers: headers, body: body, timeout: timeout, userAgent: userAgent, addressPolicy: addressPolicy)
        // Cancelling the task cannot interrupt a blocked thread; the flag makes curl's progress
        // callback abort the transfer instead (it runs at least once a second).
        let cancelled = CurlCancellation()
        return try await withTaskCancellationHandler {
            try await threadPool.runIfActive { try request.perform(cancelled: cancelled) }
        } onCancel: {
            cancelled.flag.store(true, ordering: .relaxed)
        }
    }
}

/// Set when the task waiting for a transfer is cancelled.
final class CurlCancellation: Sendable {
    let flag = Atomic<Bool>(false)
}

/// One request, performed synchronously on a pool thread.
struct CurlRequest: Sendable {
    let url: String
    let headers: [String: String]
    let body: [UInt8]
    let timeout: Duration
    let userAgent: String
    let addressPolicy: WebhookAddressPolicy

    /// Resolves the URL's host (blocking DNS, on this pool thread), refuses it when any address is
    /// not allowed, and returns the `CURLOPT_RESOLVE` entry that makes curl connect to exactly
    /// these addresses: a second DNS answer (rebinding) cannot send the request elsewhere.
    /// `nil` when the environment names a proxy for the URL's scheme (`https_proxy`, `all_proxy`,
    /// as curl reads them): the proxy then resolves and connects, and is the deployment's egress
    /// control (literal addresses were checked when the endpoint was saved).
    func pinnedResolve() throws -> String? {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            throw WebhookError(.transportFailed, "the URL has no host")
        }
        let scheme = components.scheme?.lowercased() ?? "http"
        let environment = ProcessInfo.processInfo.environment
        if ["\(scheme)_proxy", scheme == "https" ? "HTTPS_PROXY" : "", "all_proxy", "ALL_PROXY"].contains(where: {
            !$0.isEmpty && environment[$0]?.isEmpty == false
        }) {
            if let refusal = addressPolicy.refusal(forHost: host) { throw WebhookError(.addressRefused, "not delivered: \(refusal)") }
            return nil
        }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses = try WebhookAddressPolicy.addresses(of: bare, port: port)
        guard !addresses.isEmpty else { throw WebhookError(.transportFailed, "\(host) has no address") }
        for address in addresses {
            if let refusal = addressPolicy.refusal(for: address) {
                throw WebhookError(.addressRefused, "not delivered: \(host) resolves to \(refusal); webhooks go to public addresses only")
            }
        }
        let list = addresses.map { $0.count == 16 ? "[\(IPNetwork.text($0))]" : IPNetwork.text($0) }.joined(separator: ",")
        return "\(bare):\(port):\(list)"
    }

    func perform(cancelled: CurlCancellation) throws -> WebhookHTTPResponse {
        let resolve = try pinnedResolve()
        guard let handle = curl_easy_init() else { throw WebhookError(.transportFailed, "curl_easy_init failed") }
        defer { curl_easy_cleanup(handle) }
        let resolveList: UnsafeMutablePointer<curl_slist>? = resolve.map { curl_slist_append(nil, $0) } ?? nil
        defer { curl_slist_free_all(resolveList) }

        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for name in headers.keys.sorted() { headerList = curl_slist_append(headerList, "\(name): \(headers[name]!)") }
        // No `Expect: 100-continue` round trip for bodies over 1 KiB.
        headerList = curl_slist_append(headerList, "Expect:")

        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }

        let sink = CurlResponseSink(limit: CurlWebhookClient.maxResponseBytes, cancelled: cancelled)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let milliseconds = max(1, Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))

        func check(_ rc: CURLcode, _ what: String) throws {
            guard rc == CURLE_OK else { throw WebhookError(.transportFailed, "\(what): \(String(cString: curl_easy_strerror(rc)))") }
        }
        try check(hub_curl_setopt_string(handle, CURLOPT_URL, url), "bad URL")
        if resolveList != nil { try check(hub_curl_setopt_slist(handle, CURLOPT_RESOLVE, resolveList), "pinned addresses") }
        try check(hub_curl_allow_only_http(handle), "restricting protocols")
        try check(hub_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0), "redirects")
        // Timeouts by signal would hit whichever thread is running; this process has many.
        try check(hub_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "signals")
        try check(hub_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds), "timeout")
        try check(hub_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds), "connect timeout")
        try check(hub_curl_setopt_string(handle, CURLOPT_USERAGENT, userAgent), "user agent")
        try check(hub_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList), "headers")
        try check(hub_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), "error buffer")
        try check(hub_curl_setopt_long(handle, CURLOPT_POST, 1), "POST")
        try check(hub_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count), "body size")
        // COPYPOSTFIELDS copies the bytes, so no pointer into `body` has to outlive this call.
        // An empty array has no storage to point at; the size (0) is what counts then.
        var payload = body.isEmpty ? [0] : body
        try payload.withUnsafeMutableBytes { bytes in
            try check(hub_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, bytes.baseAddress!), "body")
        }
        try check(hub_curl_setopt_write_function(handle, curlWriteCallback), "write callback")
        try check(hub_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context), "write data")
        try check(hub_curl_setopt_xferinfo_function(handle, curlProgressCallback), "progress callback")
        try check(hub_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context), "progress data")
        try check(hub_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0), "progress")

        let rc = withExtendedLifetime(sink) { curl_easy_perform(handle) }
        if rc == CURLE_ABORTED_BY_CALLBACK && cancelled.flag.load(ordering: .relaxed) { throw CancellationError() }
        // The sink stops the transfer once it has kept enough; the status line has arrived by then.
        guard rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && sink.full) else {
            let detail = String(cString: errorBuffer)
            throw WebhookError(.transportFailed, detail.isEmpty ? String(cString: curl_easy_strerror(rc)) : detail)
        }
        var status = 0
        _ = hub_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return WebhookHTTPResponse(status: status, bodyPrefix: sink.bytes)
    }
}

/// Collects the start of a response body. Touched only by the thread running the transfer.
final class CurlResponseSink {
    let limit: Int
    let cancelled: CurlCancellation
    var bytes: [UInt8] = []
    var full = false

    init(limit: Int, cancelled: CurlCancellation) {
        self.limit = limit
        self.cancelled = cancelled
    }
}

@available(*, unavailable)
extension CurlResponseSink: Sendable {}

/// Keeps up to `limit` bytes, then returns less than it was given, which makes curl stop with
/// `CURLE_WRITE_ERROR` rather than read a large or endless body until the timeout.
private let curlWriteCallback: hub_curl_write_callback = { data, size, count, context in
    let sink = Unmanaged<CurlResponseSink>.fromOpaque(context!).takeUnretainedValue()
    let total = size * count
    let room = sink.limit - sink.bytes.count
    if let data, room > 0 {
        data.withMemoryRebound(to: UInt8.self, capacity: total) {
            sink.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: min(room, total)))
        }
    }
    if total > room {
        sink.full = true
        return 0
    }
    return total
}

/// Non-zero aborts the transfer: that is how a cancelled task stops a blocked request.
private let curlProgressCallback: hub_curl_xferinfo_callback = { context, _, _, _, _ in
    let sink = Unmanaged<CurlResponseSink>.fromOpaque(context!).takeUnretainedValue()
    return sink.cancelled.flag.load(ordering: .relaxed) ? 1 : 0
}
