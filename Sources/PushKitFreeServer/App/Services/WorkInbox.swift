import NIOConcurrencyHelpers

/// Work handed from requests to a service's own thread: requests add items from any thread, the
/// thread waits in `wait(timeout:)` and takes every item waiting at once. After `close()` nothing
/// more is accepted, and `wait` hands over what is left, then says the inbox is closed, so the
/// thread's loop ends with nothing handed to it left behind.
///
/// The thread blocks in `wait`, so it must be one of the service's own (never an event loop or a
/// thread of Swift's cooperative pool): the items go from the request's thread straight to it,
/// with no task to schedule in between, which keeps a write or a send from queueing behind the
/// requests' own tasks.
final class WorkInbox<Item: Sendable>: @unchecked Sendable {
    /// `true` while items wait or once the inbox is closed; guards `items` and `closed`.
    private let ready = ConditionLock(value: false)
    private var items: [Item] = []
    private var closed = false

    /// Adds `item` for the thread; `false` when the inbox is closed (the service has stopped).
    func add(_ item: Item) -> Bool {
        ready.lock()
        if closed {
            ready.unlock()
            return false
        }
        items.append(item)
        ready.unlock(withValue: true)
        return true
    }

    /// Blocks until items wait, the inbox is closed, or `timeout` passes (`nil`: no limit).
    /// - Returns: every item waiting, oldest first, and whether the inbox is closed; no items and
    ///   not closed when `timeout` passed first.
    func wait(timeout: Duration?) -> (items: [Item], closed: Bool) {
        if let timeout {
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            guard ready.lock(whenValue: true, timeoutSeconds: seconds) else { return ([], false) }
        } else {
            ready.lock(whenValue: true)
        }
        let taken = items
        items.removeAll(keepingCapacity: true)
        let isClosed = closed
        ready.unlock(withValue: isClosed) // a closed inbox stays ready: every later wait returns at once
        return (taken, isClosed)
    }

    /// Accepts nothing more and wakes the thread; the items already added are still handed over.
    func close() {
        ready.lock()
        closed = true
        ready.unlock(withValue: true)
    }
}
