import Synchronization

/// Wakes the dispatcher's loop early: after events are appended, when a worker finishes, or at
/// shutdown. Signals coalesce, and one sent while the loop is busy is kept for its next wait, so
/// none is lost between a check and a wait.
///
/// A hand-made primitive rather than an `AsyncStream`: the loop races every wait against a timer,
/// and cancelling a task blocked in an `AsyncStream` iterator finishes the whole stream.
final class WebhookWakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Returns when signalled (now, if a signal is pending), after `duration`, or when the task
    /// is cancelled.
    func wait(upTo duration: Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) async {
        let pending = state.withLock { state in
            defer { state.pending = false }
            return state.pending
        }
        if pending || Task.isCancelled { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await sleep(duration) }
            group.addTask { await self.signalled() }
            await group.next()
            group.cancelAll()
        }
    }

    private func signalled() async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    if Task.isCancelled { return true }
                    state.waiter = (id, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume()
        }
    }
}
