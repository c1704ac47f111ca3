import CCurlShim
import PushKitFreeCore

/// Finds connections that went silent (a NAT router forgot them: no FIN, no RST, nothing ever
/// arrives again) and closes them, so their requests fail at once and are resent on a new one.
///
/// The rule, Go's HTTP/2 health check as gorush configures it: while requests are in flight and
/// nothing has arrived on a connection for `quietBeforePing` (1 s), every connection carrying a
/// request is sent an HTTP/2 PING. A connection that has received nothing at all `pingTimeout`
/// (1 s) after its PING is dead: its socket is shut down, libcurl fails its transfers, and the
/// delivery resends them (one attempt each, like any lost connection). A server answers a PING at
/// once however slow its answers to requests are, so slow answers never look like silence, and a
/// request that is merely slow is never resent.
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
    /// Nothing received for this long after the PING: the connection is dead.
    static let pingTimeout: Int64 = 1000

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
            guard now - sentAt >= Self.pingTimeout else { return .nothing }
            pingSentAt = nil
            lastCheckEnded = now
            let shut = Int(pushkit_multi_shut_quiet_sockets(events, sentAt))
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
                + "within 1 s); closed it")
    }
}
