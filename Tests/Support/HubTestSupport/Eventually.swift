public import Testing

/// Waits until `condition` holds, checking every 10 ms, and fails the test after `timeout`.
/// For conditions reached by other tasks; the check, never the wait, is the assertion.
public func eventually(
    _ what: String,
    timeout: Duration = .seconds(30),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out after \(timeout) waiting for \(what)", sourceLocation: sourceLocation)
            throw TimedOut(what: what)
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

public struct TimedOut: Error {
    public let what: String
}
