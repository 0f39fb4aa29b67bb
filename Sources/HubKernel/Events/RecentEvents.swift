import Synchronization

/// The newest end of the event log, kept in memory by the ``EventBus`` while live streams are open,
/// each event already in its Server-Sent Events form.
///
/// Without it every stream reads the log and encodes each event itself: a thousand streams on one
/// instance made a thousand database reads and a thousand JSON encodings per event, and the reads
/// queued behind each other on the instance's few reader connections (measured by `make
/// bench-fanout`). With it the bus reads each batch of new events once, before it tells the
/// streams, and every stream whose cursor the window covers copies from memory.
///
/// The window holds every event with a sequence in `(start, end]`, oldest first, at most about
/// `capacity` of them. A stream whose cursor is older than `start` (a client resuming from far back)
/// reads the database, as before, until it has caught up.
final class RecentEvents: Sendable {
    /// One event: what filters look at, and the message a stream writes.
    struct Entry: Sendable {
        var sequence: Int64
        var type: String
        /// `id:`, `event:` and `data:` lines and the blank line that ends the message.
        var message: String
    }

    /// What a read found: the matching events, and how far it looked.
    struct Slice {
        var entries: [Entry]
        /// The sequence up to which the window was searched: a stream's cursor may move here even
        /// when nothing matched its filter.
        var searchedThrough: Int64
    }

    private struct Window {
        /// Nothing is covered until the bus sets a start (``reset(at:)``).
        var start: Int64 = .max
        var end: Int64 = .max
        var entries: [Entry] = []
    }

    let capacity: Int
    private let window = Mutex(Window())

    init(capacity: Int = 4096) {
        precondition(capacity > 0, "the window must hold at least one event")
        self.capacity = capacity
    }

    /// The newest sequence the window covers, or nil while it covers nothing.
    var end: Int64? { window.withLock { $0.start == .max ? nil : $0.end } }

    /// Covers nothing (the bus stops filling the window while no stream reads it, so it goes stale).
    func clear() { window.withLock { $0 = Window() } }

    /// Covers nothing before `sequence`, and everything after it once appended.
    func reset(at sequence: Int64) { window.withLock { $0 = Window(start: sequence, end: sequence) } }

    /// Adds `events`, which must be every event after ``end`` up to the last of them, oldest first;
    /// forgets the oldest beyond `capacity`.
    func append(_ events: [EventRecord]) {
        guard let last = events.last else { return }
        let entries = events.map { event in
            Entry(
                sequence: event.sequence,
                type: event.type,
                message: "id: \(event.sequence)\nevent: \(event.type)\ndata: \(EventLog.envelope(event))\n\n"
            )
        }
        window.withLock { window in
            precondition(window.start != .max, "append before reset")
            window.entries += entries
            window.end = last.sequence
            // Trims in steps of a capacity, so appending stays amortised O(1) per event.
            if window.entries.count >= 2 * capacity {
                let dropped = window.entries.count - capacity
                window.start = window.entries[dropped - 1].sequence
                window.entries.removeFirst(dropped)
            }
        }
    }

    /// The events after `cursor` matching `filter`, at most `limit`, when the window holds every
    /// event after `cursor` up to at least `through`; nil otherwise (read the database instead).
    func read(after cursor: Int64, through: Int64, limit: Int, filter: EventFilter) -> Slice? {
        window.withLock { window in
            guard window.start != .max, window.start <= cursor, window.end >= through else { return nil }
            var low = 0
            var high = window.entries.count
            while low < high {
                let middle = (low + high) / 2
                if window.entries[middle].sequence <= cursor { low = middle + 1 } else { high = middle }
            }
            var found: [Entry] = []
            var searched = max(cursor, window.end)
            for entry in window.entries[low...] where filter.matches(entry.type) {
                if found.count == limit {
                    searched = found[found.count - 1].sequence
                    break
                }
                found.append(entry)
            }
            return Slice(entries: found, searchedThrough: searched)
        }
    }
}
