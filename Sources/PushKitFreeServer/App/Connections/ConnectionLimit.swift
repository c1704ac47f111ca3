import NIOCore
import Synchronization

/// The connections `register-apns serve` holds at once, in all and per client address, so that
/// connections that do nothing, or that one client opens by the hundred, cannot use up its file
/// descriptors and lock out everyone else.
///
/// Each connection is counted from accept until it closes, under its client's key
/// (`RateLimiter.key`: an IPv4 address, or an IPv6 address's /64). A connection is *idle* while it
/// has no request in progress: it has not sent its first complete request head, or its last request
/// was answered and it waits to send another, or it is a WebSocket between messages. Idle
/// connections are ordered by when they last did something (a WebSocket's last frame counts), and
/// the one idle longest gives way:
/// - when a new connection would pass `perClientMaximum` for its client, that client's connection
///   idle longest is closed; when every one of that client's connections is busy, the new one is;
/// - when a new connection would pass `maximum`, the connection idle longest of any client is
///   closed; when every connection is busy, the new one is.
///
/// So an honest client, which sends its request at once, still gets in while hundreds of silent,
/// slow, idle or upgraded ones are held, and one address can never hold more than its share.
/// Busy connections are bounded by time instead (`RequestProgress`'s body deadline). Safe to call
/// from any event loop.
final class ConnectionLimit: Sendable {
    /// Descriptors kept for everything but client connections: the state file, its lock and journal,
    /// the connections to APNs, the event loops' own.
    static let reservedDescriptors = 128

    /// The most connections held at once.
    let maximum: Int
    /// The most connections held at once from one client (`RateLimiter.key`).
    let perClientMaximum: Int
    private let events: @Sendable (ConnectionEvent) -> Void
    private let state = Mutex(State())

    /// What the limit did to a connection, for the metrics.
    enum ConnectionEvent: Sendable, Equatable {
        /// A new connection was closed at once: every connection in its way was busy.
        case refused(Reason)
        /// An idle connection was closed to make room for a new one.
        case dropped(Reason)
        /// The number of connections held changed.
        case count(Int)
    }

    /// Which limit a connection met.
    enum Reason: String, Sendable {
        /// `maximum`, the table of every client.
        case full
        /// `perClientMaximum`, the client's own share.
        case client
    }

    /// A connection's place in the count.
    struct Ticket: Sendable {
        fileprivate let id: Int
    }

    /// - Parameters:
    ///   - maximum: the most connections held at once (at least 1).
    ///   - perClientMaximum: the most from one client; `nil` for `defaultPerClientMaximum(maximum)`.
    ///   - events: told of refusals, drops and the count, on the thread that caused them.
    init(maximum: Int, perClientMaximum: Int? = nil, events: @escaping @Sendable (ConnectionEvent) -> Void = { _ in }) {
        self.maximum = max(1, maximum)
        self.perClientMaximum = min(self.maximum, max(1, perClientMaximum ?? Self.defaultPerClientMaximum(maximum)))
        self.events = events
    }

    /// The default maximum: the process's open-file limit less `reservedDescriptors` (at least 16).
    static func defaultMaximum(openFileLimit: Int) -> Int {
        max(16, openFileLimit - reservedDescriptors)
    }

    /// The default share of one client: a quarter of `maximum`, at least 16 (and at most `maximum`),
    /// so that three quarters stay free for others whatever one address does, while a reverse proxy
    /// or a busy host still gets dozens.
    static func defaultPerClientMaximum(_ maximum: Int) -> Int {
        min(max(1, maximum), max(16, maximum / 4))
    }

    /// Counts `channel` from `client`, closing the connection idle longest when the client's share or
    /// the table is full; `nil` when every connection in the way is busy (the caller closes `channel`).
    func open(_ channel: any Channel, client: String) -> Ticket? {
        let key = RateLimiter.key(client)
        let (ticket, dropped, event, count) = state.withLock {
            state -> (Ticket?, (any Channel)?, ConnectionEvent?, Int) in
            var dropped: (any Channel)?
            var event: ConnectionEvent?
            if state.clients[key, default: 0] >= perClientMaximum {
                guard let oldest = state.popIdlest(of: key) else {
                    return (nil, nil, .refused(.client), state.open.count)
                }
                dropped = state.remove(oldest)
                event = .dropped(.client)
            } else if state.open.count >= maximum {
                guard let oldest = state.popIdlest(of: nil) else {
                    return (nil, nil, .refused(.full), state.open.count)
                }
                dropped = state.remove(oldest)
                event = .dropped(.full)
            }
            let id = state.nextID
            state.nextID += 1
            state.open[id] = Entry(channel: channel, client: key)
            state.clients[key, default: 0] += 1
            state.makeIdle(id)
            return (Ticket(id: id), dropped, event, state.open.count)
        }
        dropped?.close(promise: nil)
        if let event { events(event) }
        events(.count(count))
        return ticket
    }

    /// The connection's request was answered: it is idle until its next head.
    func answered(_ ticket: Ticket) {
        state.withLock { state in
            guard let entry = state.open[ticket.id], entry.idleSince == nil else { return }
            state.makeIdle(ticket.id)
        }
    }

    /// The connection sent a complete request head: it is not closed to make room while the request
    /// is in progress.
    func headReceived(_ ticket: Ticket) {
        state.withLock { state in
            state.open[ticket.id]?.idleSince = nil
        }
    }

    /// The connection became a WebSocket: from now on it is idle between messages, and each frame it
    /// sends (`active`) makes it the most recently active.
    func upgraded(_ ticket: Ticket) {
        state.withLock { state in
            guard state.open[ticket.id] != nil else { return }
            state.open[ticket.id]?.isSocket = true
            state.makeIdle(ticket.id)
        }
    }

    /// The WebSocket sent a frame: it moves to the back of the idle order.
    func active(_ ticket: Ticket) {
        state.withLock { state in
            guard let entry = state.open[ticket.id], entry.isSocket else { return }
            state.makeIdle(ticket.id)
        }
    }

    /// The connection closed.
    func closed(_ ticket: Ticket) {
        let count = state.withLock { state -> Int? in
            guard state.open[ticket.id] != nil else { return nil }
            _ = state.remove(ticket.id)
            return state.open.count
        }
        if let count { events(.count(count)) }
    }

    /// The number of connections held.
    var count: Int { state.withLock { $0.open.count } }

    /// The number of connections held from `client`'s key.
    func count(of client: String) -> Int { state.withLock { $0.clients[RateLimiter.key(client), default: 0] } }

    private struct Entry {
        let channel: any Channel
        let client: String
        /// The stamp of the moment it last became idle or active; `nil` while a request is in progress.
        var idleSince: UInt64?
        var isSocket = false
    }

    private struct State {
        var nextID = 0
        var clock: UInt64 = 0
        /// Every connection held, by id.
        var open: [Int: Entry] = [:]
        /// Connections held per client key.
        var clients: [String: Int] = [:]
        /// Every idle connection, oldest first; an entry whose stamp is no longer its connection's is
        /// stale and skipped.
        var idle = IdleOrder()
        /// The same per client key.
        var idleByClient: [String: IdleOrder] = [:]

        mutating func makeIdle(_ id: Int) {
            guard let client = open[id]?.client else { return }
            clock += 1
            open[id]?.idleSince = clock
            idle.append(id: id, stamp: clock)
            idleByClient[client, default: IdleOrder()].append(id: id, stamp: clock)
            let open = self.open
            idle.trim(toAbout: open.count) { Self.isCurrent($0, in: open) }
            idleByClient[client]?.trim(toAbout: clients[client, default: 0]) { Self.isCurrent($0, in: open) }
        }

        static func isCurrent(_ item: IdleOrder.Item, in open: [Int: Entry]) -> Bool {
            guard let entry = open[item.id], let since = entry.idleSince else { return false }
            return since == item.stamp
        }

        /// Takes the connection idle longest (of `client`, or of all when `nil`) out of the idle order.
        mutating func popIdlest(of client: String?) -> Int? {
            let open = self.open
            if let client {
                let id = idleByClient[client]?.popFirst { Self.isCurrent($0, in: open) }
                if idleByClient[client]?.isEmpty == true { idleByClient[client] = nil }
                return id
            }
            return idle.popFirst { Self.isCurrent($0, in: open) }
        }

        /// Forgets connection `id`; returns its channel.
        mutating func remove(_ id: Int) -> (any Channel)? {
            guard let entry = open.removeValue(forKey: id) else { return nil }
            let remaining = clients[entry.client, default: 1] - 1
            clients[entry.client] = remaining > 0 ? remaining : nil
            if remaining == 0 { idleByClient[entry.client] = nil }
            return entry.channel
        }
    }
}

/// Connections in the order they became idle, with stale entries skipped lazily: appending is O(1),
/// taking the oldest amortized O(1), and the storage is rebuilt from the current entries once stale
/// ones outnumber them, so a WebSocket that sends a frame a millisecond grows nothing.
private struct IdleOrder {
    struct Item {
        let id: Int
        let stamp: UInt64
    }

    private var items: [Item] = []
    private var start = 0

    var isEmpty: Bool { start >= items.count }

    mutating func append(id: Int, stamp: UInt64) {
        items.append(Item(id: id, stamp: stamp))
    }

    /// Takes out and returns the oldest item `isCurrent` accepts, dropping stale ones before it.
    mutating func popFirst(_ isCurrent: (Item) -> Bool) -> Int? {
        while start < items.count {
            let item = items[start]
            start += 1
            if isCurrent(item) {
                reclaim()
                return item.id
            }
        }
        items.removeAll(keepingCapacity: true)
        start = 0
        return nil
    }

    /// Rebuilds the storage from the current items once it holds more than twice `current` plus 64.
    mutating func trim(toAbout current: Int, _ isCurrent: (Item) -> Bool) {
        guard items.count - start > 2 * current + 64 else { return }
        items = items[start...].filter(isCurrent)
        start = 0
    }

    private mutating func reclaim() {
        if start > 1024, start * 2 > items.count {
            items.removeFirst(start)
            start = 0
        }
    }
}
