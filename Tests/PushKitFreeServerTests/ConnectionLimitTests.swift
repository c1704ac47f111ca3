import NIOCore
import NIOEmbedded
import NIOWebSocket
@testable import PushKitFreeServer
import Synchronization
import Testing

/// `ConnectionLimit`'s choices with embedded channels: who is closed to make room, who is refused,
/// and what one client address may hold.
@Suite("register-apns serve: the connection table")
struct ConnectionLimitTests {
    /// Records the limit's events.
    final class Events: Sendable {
        private let seen = Mutex<[ConnectionLimit.ConnectionEvent]>([])
        var all: [ConnectionLimit.ConnectionEvent] { seen.withLock { $0 } }
        var withoutCounts: [ConnectionLimit.ConnectionEvent] {
            all.filter { if case .count = $0 { false } else { true } }
        }
        func record(_ event: ConnectionLimit.ConnectionEvent) { seen.withLock { $0.append(event) } }
    }

    /// An open embedded channel, and its ticket once counted.
    final class Connection {
        let channel = EmbeddedChannel()
        var ticket: ConnectionLimit.Ticket?

        init(_ limit: ConnectionLimit, client: String) throws {
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            ticket = limit.open(channel, client: client)
            if let ticket { channel.closeFuture.whenComplete { _ in limit.closed(ticket) } }
        }

        var isOpen: Bool { channel.isActive }
    }

    @Test("one address holds at most its share: its connection idle longest gives way, others are untouched")
    func perClientShare() throws {
        let events = Events()
        let limit = ConnectionLimit(maximum: 10, perClientMaximum: 3, events: events.record)
        let other = try Connection(limit, client: "10.0.0.9")
        let first = try (0..<3).map { _ in try Connection(limit, client: "10.0.0.1") }
        #expect(limit.count(of: "10.0.0.1") == 3)
        let fourth = try Connection(limit, client: "10.0.0.1")
        #expect(fourth.ticket != nil && fourth.isOpen)
        #expect(!first[0].isOpen, "the client's oldest idle connection was closed")
        #expect(first[1].isOpen && first[2].isOpen && other.isOpen)
        #expect(limit.count(of: "10.0.0.1") == 3 && limit.count == 4)
        #expect(events.withoutCounts == [.dropped(.client)])
    }

    @Test("when all of a client's connections are busy, its new one is refused and nobody else is touched")
    func busyClientIsRefused() throws {
        let events = Events()
        let limit = ConnectionLimit(maximum: 10, perClientMaximum: 2, events: events.record)
        let busy = try (0..<2).map { _ in try Connection(limit, client: "10.0.0.1") }
        for connection in busy { limit.headReceived(try #require(connection.ticket)) }
        let idleOther = try Connection(limit, client: "10.0.0.2")
        let refused = try Connection(limit, client: "10.0.0.1")
        #expect(refused.ticket == nil)
        #expect(busy.allSatisfy(\.isOpen) && idleOther.isOpen)
        #expect(events.withoutCounts == [.refused(.client)])
    }

    @Test("a full table closes the connection idle longest of any client, a WebSocket that went quiet among them")
    func fullTableDropsIdlest() throws {
        let events = Events()
        let limit = ConnectionLimit(maximum: 3, perClientMaximum: 3, events: events.record)
        let socket = try Connection(limit, client: "10.0.0.1")
        let ticket = try #require(socket.ticket)
        limit.headReceived(ticket)
        limit.upgraded(ticket)
        let chatty = try Connection(limit, client: "10.0.0.2")
        let chattyTicket = try #require(chatty.ticket)
        limit.headReceived(chattyTicket)
        limit.upgraded(chattyTicket)
        let answered = try Connection(limit, client: "10.0.0.3")
        let answeredTicket = try #require(answered.ticket)
        limit.headReceived(answeredTicket)
        limit.answered(answeredTicket)
        limit.active(chattyTicket)
        // Idle order now: socket (upgraded first), answered, chatty (its last frame).
        let newcomer = try Connection(limit, client: "10.0.0.4")
        #expect(newcomer.ticket != nil)
        #expect(!socket.isOpen, "the quiet WebSocket gave way")
        #expect(answered.isOpen && chatty.isOpen)
        let next = try Connection(limit, client: "10.0.0.5")
        #expect(next.ticket != nil && !answered.isOpen && chatty.isOpen, "then the answered connection")
        #expect(events.withoutCounts == [.dropped(.full), .dropped(.full)])
    }

    @Test("a full table of busy connections refuses the new one")
    func fullTableOfBusyRefuses() throws {
        let events = Events()
        let limit = ConnectionLimit(maximum: 2, perClientMaximum: 2, events: events.record)
        let busy = try (1...2).map { try Connection(limit, client: "10.0.0.\($0)") }
        for connection in busy { limit.headReceived(try #require(connection.ticket)) }
        let refused = try Connection(limit, client: "10.0.0.3")
        #expect(refused.ticket == nil && busy.allSatisfy(\.isOpen))
        #expect(events.withoutCounts == [.refused(.full)])
        // Once one is answered it may give way again.
        limit.answered(try #require(busy[0].ticket))
        let admitted = try Connection(limit, client: "10.0.0.3")
        #expect(admitted.ticket != nil && !busy[0].isOpen && busy[1].isOpen)
    }

    @Test("IPv6 addresses of one /64 share one share; an IPv4 address seen as ::ffff: is itself")
    func clientKeys() throws {
        let limit = ConnectionLimit(maximum: 10, perClientMaximum: 2)
        let a = try Connection(limit, client: "2001:db8:1:2::1")
        let b = try Connection(limit, client: "2001:db8:1:2:ffff::9")
        let c = try Connection(limit, client: "2001:db8:1:2::77")
        #expect(!a.isOpen && b.isOpen && c.isOpen)
        _ = try Connection(limit, client: "::ffff:10.0.0.1")
        #expect(limit.count(of: "10.0.0.1") == 1)
    }

    @Test("a WebSocket that sends a frame every moment grows nothing: stale entries are reclaimed")
    func staleEntriesAreReclaimed() throws {
        let limit = ConnectionLimit(maximum: 4, perClientMaximum: 4)
        let quiet = try Connection(limit, client: "10.0.0.1")
        let socket = try Connection(limit, client: "10.0.0.2")
        let ticket = try #require(socket.ticket)
        limit.headReceived(ticket)
        limit.upgraded(ticket)
        for _ in 0..<100_000 { limit.active(ticket) }
        _ = try (0..<3).map { _ in try Connection(limit, client: "10.0.0.3") }
        #expect(!quiet.isOpen && socket.isOpen, "the quiet connection, idle longest, gave way")
    }

    @Test("the default share is a quarter of the table, at least 16, at most all of it")
    func defaultShare() {
        #expect(ConnectionLimit.defaultPerClientMaximum(896) == 224)
        #expect(ConnectionLimit.defaultPerClientMaximum(300) == 75)
        #expect(ConnectionLimit.defaultPerClientMaximum(40) == 16)
        #expect(ConnectionLimit.defaultPerClientMaximum(5) == 5)
    }
}

/// `GatewayFrameGuard` on an embedded channel.
@Suite("register-apns serve: the WebSocket frame guard")
struct GatewayFrameGuardTests {
    @Test("an unmasked client frame is answered with close 1002 and the connection closed; masked frames pass")
    func unmaskedFrames() throws {
        let frames = Mutex(0)
        let channel = EmbeddedChannel(handler: GatewayFrameGuard { frames.withLock { $0 += 1 } })
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        var masked = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "{}"))
        masked.maskKey = WebSocketMaskingKey([1, 2, 3, 4])
        try channel.writeInbound(masked)
        #expect(try channel.readInbound(as: WebSocketFrame.self) != nil)
        #expect(frames.withLock { $0 } == 1)

        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "{}")))
        #expect(try channel.readInbound(as: WebSocketFrame.self) == nil, "the unmasked frame goes no further")
        let close = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        var data = close.data
        #expect(close.opcode == .connectionClose)
        #expect(data.readWebSocketErrorCode() == .protocolError)
        #expect(data.readString(length: data.readableBytes) == GatewayFrameGuard.unmaskedReason)
        #expect(!channel.isActive)
        #expect(frames.withLock { $0 } == 1)
    }
}
