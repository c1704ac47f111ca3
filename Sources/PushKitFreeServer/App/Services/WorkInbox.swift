import Synchronization

/// Work handed from requests to a service's loop: requests add items, the service's `run()` waits
/// on `wakeUps` and takes every item waiting at once. After `close()` nothing more is accepted, and
/// the wake-ups end once the last is read, so the loop ends with nothing handed to it left behind.
///
/// Wake-ups are coalesced (at most one is buffered): a loop woken once takes every item added
/// before it looks, so it never sleeps while work waits, and never spins on stale signals.
final class WorkInbox<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var closed = false
    }

    private let state = Mutex(State())
    private let signal: AsyncStream<Void>.Continuation
    /// One element whenever items may be waiting; finished by `close()`.
    let wakeUps: AsyncStream<Void>

    init() {
        (wakeUps, signal) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Adds `item` for the loop; `false` when the inbox is closed (the service has stopped).
    func add(_ item: Item) -> Bool {
        let accepted = state.withLock { state in
            if state.closed { return false }
            state.items.append(item)
            return true
        }
        if accepted { signal.yield() }
        return accepted
    }

    /// Every item waiting, oldest first; none when nothing waits.
    func takeAll() -> [Item] {
        state.withLock { state in
            defer { state.items.removeAll(keepingCapacity: true) }
            return state.items
        }
    }

    /// Whether no item waits.
    var isEmpty: Bool { state.withLock { $0.items.isEmpty } }

    /// Accepts nothing more and ends `wakeUps`; the items already added are still there to take.
    func close() {
        state.withLock { $0.closed = true }
        signal.finish()
    }
}
