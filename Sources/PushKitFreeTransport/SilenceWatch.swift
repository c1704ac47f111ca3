import CCurlShim
import PushKitFreeCore

/// Finds connections that went silent (a NAT router forgot them: no FIN, no RST, nothing ever
/// arrives again) and closes them, so their requests fail at once and are resent on a new one.
///
/// The rule, Go's HTTP/2 health check as gorush configures it: while requests are in flight and
/// nothing has arrived on a connection for `quietBeforePing` (1 s), every connection carrying a
/// request is sent an HTTP/2 PING. A connection that has received nothing at all `pingTimeout`
/// after its PING is dead: its socket is shut down, libcurl fails its transfers, and the
/// delivery resends them (one attempt each, like any lost connection). A server answers a PING at
/// once however slow its answers to requests are, so slow answers never look like silence, and a
/// request that is merely slow is never resent.
///
/// "At once" is as soon as the server's event loop gets to it, which a loaded machine delays: the
/// deadline follows what the answers to earlier PINGs took (`pingTimeout`: four times the slowest
/// lately, 1 s at least, 10 s at most, as TCP's retransmission timeout follows its round trips), and
/// a socket with bytes waiting unread (this process was the one held up) is never taken for silent.
///
/// A connection that has heard nothing for longer than `quietBeforePing` when new requests come
/// (an idle connection `register-apns serve` kept between pushes) is pinged as soon as they are on
/// it, so a dead one is found a second after the push rather than two.
///
/// Why not libcurl's own tools: `curl_easy_upkeep` (and `CURLOPT_UPKEEP_INTERVAL_MS`) sends PINGs
/// only for connections of `curl_easy_perform`, never for a multi handle's; TCP keepalive and
/// `TCP_USER_TIMEOUT` watch acknowledgements the peer's kernel still sends when its program has
/// stopped; a low-speed limit or a per-request timeout cannot tell a dead connection from a slow
/// answer. So the PING goes out through `HTTP2PingProbe.c`, and what arrives is seen by the event
/// loop (`MultiEvents.c`, which notes when each socket last had something to read).
struct SilenceWatch {
    /// Nothing received for this long with requests in flight: ping.
    static let quietBeforePing: Int64 = 1000
    /// The shortest time a PING's answer is given (ms): a connection that has received nothing this
    /// long after its PING, and more than four times what PINGs' answers took lately, is dead.
    static let minimumPingTimeout: Int64 = 1000
    /// The longest time a PING's answer is given (ms), however slow earlier answers were.
    static let maximumPingTimeout: Int64 = 10_000

    /// The slowest answer to a PING lately (ms): the slowest seen, less an eighth at each later answer.
    private var slowAnswer: Int64 = 0

    /// How long a PING's answer may take before its connection is taken for dead (ms).
    var pingTimeout: Int64 {
        min(Self.maximumPingTimeout, max(Self.minimumPingTimeout, 4 * slowAnswer))
    }

    /// Notes that a PING was answered `milliseconds` after it was sent.
    mutating func answered(after milliseconds: Int64) {
        slowAnswer = max(milliseconds, slowAnswer - slowAnswer / 8)
    }

    /// When the PING of the check in progress went out (CLOCK_MONOTONIC ms), if one is.
    private var pingSentAt: Int64?
    /// When the last check ended; the next waits `quietBeforePing` from here.
    private var lastCheckEnded: Int64 = .min

    /// What `check` found.
    enum Finding {
        case nothing
        /// This many connections were shut down as dead.
        case closedSilent(Int)
    }

    /// Forgets a check left unfinished by the previous run (it ended at its deadline).
    mutating func startRun() {
        pingSentAt = nil
    }

    /// Called after every turn of the event loop with the transfers in flight.
    mutating func check(
        events: UnsafeMutablePointer<pushkit_multi_events>,
        inFlight: some Collection<Transfer>
    ) -> Finding {
        guard !inFlight.isEmpty else {
            pingSentAt = nil
            return .nothing
        }
        let now = pushkit_multi_milliseconds()
        if let sentAt = pingSentAt {
            if pushkit_multi_quietest_input(events) >= sentAt {
                // Every connection has heard something since the PING: the check is over, and
                // its time is what a PING's answer takes now.
                answered(after: now - sentAt)
                pingSentAt = nil
                lastCheckEnded = now
                return .nothing
            }
            guard now - sentAt >= pingTimeout else { return .nothing }
            pingSentAt = nil
            lastCheckEnded = now
            let shut = Int(pushkit_multi_shut_quiet_sockets(events, sentAt, now))
            return shut > 0 ? .closedSilent(shut) : .nothing
        }
        let quietest = pushkit_multi_quietest_input(events)
        guard quietest >= 0, now - max(quietest, lastCheckEnded) >= Self.quietBeforePing else { return .nothing }
        // libcurl writes out a connection's pending frames when one of its transfers is resumed;
        // the PING is added to them on the way (see HTTP2PingProbe.c).
        let before = pushkit_http2_pings_sent()
        pushkit_http2_ping_sessions(1)
        for transfer in inFlight {
            _ = curl_easy_pause(transfer.handle, 1) // CURLPAUSE_RECV
            _ = curl_easy_pause(transfer.handle, 0) // CURLPAUSE_CONT
        }
        pushkit_http2_ping_sessions(0)
        if pushkit_http2_pings_sent() != before {
            pingSentAt = now
        } else {
            lastCheckEnded = now // no connection to ping yet (still connecting): look again later
        }
        return .nothing
    }

    /// The failure reported for a request whose connection was closed as silent.
    static func failure(code: Int32) -> TransportFailure {
        TransportFailure(
            kind: .connectionLost, code: code,
            message: "the connection went silent (nothing arrived for 1 s, nor an answer to a PING "
                + "in time); closed it")
    }
}
