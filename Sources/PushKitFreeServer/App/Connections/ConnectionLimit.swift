import NIOCore
import Synchronization

/// The connections `register-apns serve` holds at once, so that connections that never send a request
/// cannot use up its file descriptors and lock out everyone else.
///
/// Each connection is counted from accept until it closes. While it has no request in progress (it
/// has not sent its first complete request head, or its last request was answered and it waits to
/// send another) it may be dropped: when a new connection would pass `maximum`, the one that became
/// droppable longest ago is closed to make room, so an honest client, which sends its request at
/// once, still gets in while hundreds of silent, slow or idle ones are held. When every connection
/// has a request in progress, the new one is closed instead. Safe to call from any event loop.
final class ConnectionLimit: Sendable {
    /// Descriptors kept for everything but client connections: the state file, its lock and journal,
    /// the connections to APNs, the event loops' own.
    static let reservedDescriptors = 128

    /// The most connections held at once.
    let maximum: Int
    private let state = Mutex(State())

    private struct State {
        var nextID = 0
        /// Every connection held, by id.
        var open: [Int: any Channel] = [:]
        /// Ids of connections still without a request head, oldest first (closed ones are skipped
        /// when met).
        var waiting: [Int] = []
        var waitingStart = 0
        /// The ids in `waiting` that are still waiting.
        var waitingIDs: Set<Int> = []
    }

    /// A connection's place in the count.
    struct Ticket: Sendable {
        fileprivate let id: Int
    }

    init(maximum: Int) {
        self.maximum = max(1, maximum)
    }

    /// The default maximum: the process's open-file limit less `reservedDescriptors` (at least 16).
    static func defaultMaximum(openFileLimit: Int) -> Int {
        max(16, openFileLimit - reservedDescriptors)
    }

    /// Counts `channel`, closing the oldest connection without a request head when the count is
    /// full; `nil` when it is full of connections that all sent one (the caller closes `channel`).
    func open(_ channel: any Channel) -> Ticket? {
        let (ticket, dropped) = state.withLock { state -> (Ticket?, (any Channel)?) in
            var dropped: (any Channel)?
            if state.open.count >= maximum {
                guard let oldest = Self.popOldestWaiting(&state) else { return (nil, nil) }
                dropped = state.open.removeValue(forKey: oldest)
            }
            let id = state.nextID
            state.nextID += 1
            state.open[id] = channel
            state.waiting.append(id)
            state.waitingIDs.insert(id)
            return (Ticket(id: id), dropped)
        }
        dropped?.close(promise: nil)
        return ticket
    }

    /// The connection's request was answered: it may be dropped to make room until its next head.
    func answered(_ ticket: Ticket) {
        state.withLock { state in
            guard state.open[ticket.id] != nil, !state.waitingIDs.contains(ticket.id) else { return }
            state.waiting.append(ticket.id)
            state.waitingIDs.insert(ticket.id)
        }
    }

    /// The connection sent a complete request head: it is not dropped to make room while the
    /// request is in progress.
    func headReceived(_ ticket: Ticket) {
        state.withLock { state in
            state.waitingIDs.remove(ticket.id)
            Self.compact(&state)
        }
    }

    /// The connection closed.
    func closed(_ ticket: Ticket) {
        state.withLock { state in
            state.open[ticket.id] = nil
            state.waitingIDs.remove(ticket.id)
            Self.compact(&state)
        }
    }

    /// The number of connections held.
    var count: Int { state.withLock { $0.open.count } }

    private static func popOldestWaiting(_ state: inout State) -> Int? {
        while state.waitingStart < state.waiting.count {
            let id = state.waiting[state.waitingStart]
            state.waitingStart += 1
            if state.waitingIDs.remove(id) != nil {
                compact(&state)
                return id
            }
        }
        return nil
    }

    /// Forgets the ids at the front of `waiting` that no longer wait, and reclaims the array's
    /// consumed front once it is most of it.
    private static func compact(_ state: inout State) {
        while state.waitingStart < state.waiting.count, !state.waitingIDs.contains(state.waiting[state.waitingStart]) {
            state.waitingStart += 1
        }
        if state.waitingStart > 1024, state.waitingStart * 2 > state.waiting.count {
            state.waiting.removeFirst(state.waitingStart)
            state.waitingStart = 0
        }
    }
}
