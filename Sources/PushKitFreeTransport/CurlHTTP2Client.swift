#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CCurlShim
import PushKitFreeCore

/// An HTTP/2 client over libcurl's multi interface: every request of a batch is multiplexed on one
/// connection per origin, with as many streams in flight as the server's SETTINGS allow.
///
/// - One multi handle lives as long as the client, so its connection is reused across batches
///   (retries go out on the connection that is still good, or a new one when it was closed).
/// - `CURLMOPT_PIPELINING = CURLPIPE_MULTIPLEX`, `CURLOPT_PIPEWAIT` and one connection per host make
///   requests wait for the first connection instead of opening more; libcurl then follows the
///   server's `SETTINGS_MAX_CONCURRENT_STREAMS` (APNs starts at 1 and raises it once a provider token
///   is accepted). The client-side stream cap is lifted so only the server's number applies.
/// - `maximumQueued` bounds how many requests are handed to libcurl at once, which bounds memory for
///   large fan-outs; it is not a stream limit (streams open only as the server allows). A request
///   unanswered after `slowAfter` stops counting against it (up to `queueCeiling` in all), so
///   devices whose answers are slow or never come do not hold back everyone queued behind them.
/// - The multi handle is driven through libcurl's event interface (`MultiEvents.c`): only the
///   transfers a ready socket or a due timer concerns are run, and the burst of frames that starts
///   newly added requests is written corked, so it leaves in a few TCP segments rather than two
///   per request. The run's deadline is enforced by `perform`'s loop, not per transfer.
/// - A connection that goes silent (no FIN, no RST, nothing arrives: a NAT router forgot it) is
///   found within about two seconds by an HTTP/2 PING and closed, and its requests fail as a lost
///   connection, which the delivery resends on a new one (see `SilenceWatch`).
/// - `openNewConnection()` (APNs' `UnrelatedKeyIdInToken`) holds back new requests until those in
///   flight are answered, then replaces the multi handle: its cleanup closes every connection, so
///   the next request opens a new one.
/// - Peer and host verification are always on; `caFile` adds a CA to the system's trust store
///   (for an `https://` proxy too).
/// - `proxy` is set as `CURLOPT_PROXY`; without it libcurl applies `https_proxy`, `all_proxy` and
///   `no_proxy` from the environment itself. Through an HTTP proxy every request goes through a
///   CONNECT tunnel (`CURLOPT_HTTPPROXYTUNNEL`, also for plain-http test URLs), so HTTP/2 is
///   negotiated with APNs end to end (ALPN h2 inside the tunnel).
/// - Two libcurl 7.88 bugs are worked around: it reset every finished stream (see
///   `ClosedStreamResetFilter.c`), and it cannot reuse a plain-http prior-knowledge connection, so
///   `http://` origins (local test servers only; APNs is TLS) get one connection per request there.
///
/// Not thread-safe: one client is driven by one thread.
package final class CurlHTTP2Client: HTTP2Transport {
    private var multi: UnsafeMutableRawPointer
    /// Set by `openNewConnection()`; cleared once the connections are closed.
    private var newConnectionRequested = false
    private let caFile: String?
    private let proxy: String?
    private let connectTimeout: Duration
    private var idleTransfers: [Transfer] = []
    /// Pings connections that have gone quiet and closes those that stay silent.
    private var silenceWatch = SilenceWatch()
    /// Transfers in flight when a silent connection was closed (by handle address).
    private var onSilentConnection: Set<Int> = []
    /// The sockets and timer libcurl asked to be watched (see `pushkit_multi_wait_and_act`).
    private let events: UnsafeMutablePointer<pushkit_multi_events>
    /// At most this many requests younger than `slowAfter` are handed to libcurl at a time.
    package let maximumQueued: Int
    /// A request in flight this long no longer counts against `maximumQueued`.
    package let slowAfter: Duration
    /// At most this many requests are handed to libcurl at a time, slow ones included: APNs allows
    /// up to 1,000 concurrent streams per connection, so more would only wait inside libcurl.
    package let queueCeiling: Int

    /// A client with no connection yet; `CurlGlobal.load()` must have succeeded. `maximumQueued` is raised
    /// to at least 1 and `queueCeiling` to at least `maximumQueued`.
    package init(
        caFile: String?, proxy: String? = nil, connectTimeout: Duration = .seconds(10), maximumQueued: Int = 200,
        slowAfter: Duration = .seconds(1), queueCeiling: Int = 1000
    ) {
        CurlGlobal.initializeOnce()
        self.caFile = caFile
        self.proxy = proxy
        self.connectTimeout = connectTimeout
        self.maximumQueued = max(1, maximumQueued)
        self.slowAfter = slowAfter
        self.queueCeiling = max(self.maximumQueued, queueCeiling)
        events = .allocate(capacity: 1)
        events.initialize(to: pushkit_multi_events())
        multi = Self.makeMulti(events: events)
    }

    /// A multi handle set up for multiplexing (see the type's notes), reporting to `events`.
    private static func makeMulti(events: UnsafeMutablePointer<pushkit_multi_events>) -> UnsafeMutableRawPointer {
        let multi = curl_multi_init()!
        pushkit_multi_watch_events(multi, events)
        pushkit_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        pushkit_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1)
        pushkit_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, Int(Int32.max))
        return multi
    }

    /// Flags the multi handle for replacement; `perform` replaces it once the requests in flight are answered.
    package func openNewConnection() {
        newConnectionRequested = true
    }

    deinit {
        for transfer in idleTransfers { transfer.close() }
        curl_multi_cleanup(multi)
        events.deallocate()
        for entry in headerLists { curl_slist_free_all(entry.list) }
    }

    /// curl header lists with the headers they were built from, each built once and shared by every
    /// request that has those headers (all devices of a run do; a replaced provider token adds a
    /// second). Freed with the client, so a list outlives every transfer that points at it.
    private var headerLists: [(headers: [(name: String, value: String)], list: UnsafeMutablePointer<curl_slist>?)] = []

    private func headerList(for headers: [(name: String, value: String)]) -> UnsafeMutablePointer<curl_slist>? {
        // Newest first: a run's requests almost always match the list built last.
        if let known = headerLists.last(where: { Self.same($0.headers, headers) }) { return known.list }
        var list: UnsafeMutablePointer<curl_slist>?
        let lines =
            headers.map { "\($0.name): \($0.value)" }
            // Without this libcurl adds "Expect: 100-continue" for larger bodies, costing a round trip.
            + ["Expect:"]
            // libcurl's default "Accept: */*" means nothing to APNs; dropping it saves work per request.
            + ["Accept:"]
        for line in lines { list = line.withCString { curl_slist_append(list, $0) } }
        headerLists.append((headers, list))
        return list
    }

    private static func same(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Sends what `next` supplies and reports each response as soon as it completes (see
    /// `HTTP2Transport`).
    ///
    /// `next` is asked only while fewer than `maximumQueued` requests are in flight (not counting
    /// those older than `slowAfter`, up to `queueCeiling`), so a large fan-out never holds all
    /// requests or all answers in memory. Between events the loop sleeps in
    /// libcurl's event wait, never past the deadline, the time `next` named, or 100 ms. At the
    /// deadline, requests in flight fail with `.timeout`.
    package func perform(
        deadline: ContinuousClock.Instant, cutoff: () -> ContinuousClock.Instant?,
        next: (ContinuousClock.Instant) -> HTTP2RequestSupply, onResponse: (HTTP2Response) -> Void
    ) {
        var active: [Int: Transfer] = [:] // by easy handle address
        var order = StartOrder()
        silenceWatch.startRun()

        while true {
            let now = ContinuousClock.now
            let interruptedAt = cutoff()
            let deadline = min(deadline, interruptedAt ?? deadline)
            if now >= deadline {
                let failure =
                    interruptedAt == deadline
                    ? TransportFailure(
                        kind: .interrupted, code: Int32(CURLE_ABORTED_BY_CALLBACK.rawValue),
                        message: "no answer before the run was interrupted")
                    : TransportFailure(
                        kind: .timeout, code: Int32(CURLE_OPERATION_TIMEDOUT.rawValue),
                        message: "no answer before the deadline")
                for transfer in active.values {
                    curl_multi_remove_handle(multi, transfer.handle)
                    transfer.inFlight = false
                    onResponse(HTTP2Response(tag: transfer.tag, result: .failure(failure)))
                    idleTransfers.append(transfer)
                }
                onSilentConnection.removeAll()
                return
            }
            if newConnectionRequested, active.isEmpty {
                // Closes every connection of the old handle; idle easy handles stay reusable.
                curl_multi_cleanup(multi)
                multi = Self.makeMulti(events: events)
                newConnectionRequested = false
            }
            var wakeAt = deadline
            var exhausted = false
            var (slow, nextTurnsSlow) = slowRequests(in: active, order: &order, now: now)
            supply: while !newConnectionRequested, active.count - slow < maximumQueued, active.count < queueCeiling {
                switch next(now) {
                case .request(let request):
                    let transfer =
                        idleTransfers.popLast()
                        ?? Transfer(caFile: caFile, proxy: proxy, connectTimeout: connectTimeout)
                    transfer.configure(for: request, headerList: headerList(for: request.headers))
                    transfer.startedAt = now
                    transfer.inFlight = true
                    curl_multi_add_handle(multi, transfer.handle)
                    active[transfer.key] = transfer
                    order.append(transfer)
                case .notBefore(let instant):
                    wakeAt = min(wakeAt, instant)
                    break supply
                case .exhausted:
                    exhausted = true
                    break supply
                }
            }
            if active.isEmpty && exhausted { return }
            if !exhausted, active.count - slow >= maximumQueued, active.count < queueCeiling {
                // The queue is full: back when its oldest request turns slow and frees a place.
                if nextTurnsSlow == nil { (slow, nextTurnsSlow) = slowRequests(in: active, order: &order, now: now) }
                if let nextTurnsSlow { wakeAt = min(wakeAt, nextTurnsSlow) }
            }

            // Never past the deadline or the next scheduled request, and at least every 100 ms back
            // here to check them (libcurl gets no per-transfer timeout: this loop is what keeps a run
            // within its deadline).
            // With nothing in flight this only sleeps until the next scheduled request, still serving
            // the idle connection (a GOAWAY or close from the server is read meanwhile).
            let wait = max(.zero, min(Duration.milliseconds(100), wakeAt - ContinuousClock.now))
            pushkit_multi_wait_and_act(multi, events, Int32(clamping: Transfer.milliseconds(wait)))

            var remainingMessages: Int32 = 0
            while let message = curl_multi_info_read(multi, &remainingMessages) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
                let code = message.pointee.data.result
                guard let transfer = active.removeValue(forKey: Int(bitPattern: handle)) else { continue }
                curl_multi_remove_handle(multi, handle)
                transfer.inFlight = false
                var result = transfer.finish(code: code)
                if onSilentConnection.remove(transfer.key) != nil, case .failure(let failure) = result {
                    result = .failure(SilenceWatch.failure(code: failure.code))
                }
                onResponse(HTTP2Response(tag: transfer.tag, result: result))
                idleTransfers.append(transfer)
            }
            if case .closedSilent = silenceWatch.check(events: events, inFlight: active.values) {
                // Their connection may be the one closed; those that fail now are reported as such.
                onSilentConnection = Set(active.keys)
            }
            if active.isEmpty { onSilentConnection.removeAll() }
        }
    }
}

extension CurlHTTP2Client {
    /// How many of `active` have been in flight `slowAfter` or longer, and when the next of the
    /// others turns slow. Only counted when the queue is full; otherwise `(0, nil)`.
    private func slowRequests(
        in active: [Int: Transfer], order: inout StartOrder, now: ContinuousClock.Instant
    ) -> (count: Int, nextTurnsSlow: ContinuousClock.Instant?) {
        guard active.count >= maximumQueued else { return (0, nil) }
        return order.slow(after: slowAfter, at: now)
    }
}

/// The transfers of a run in the order they were handed to libcurl, which is the order of their
/// start times: the slow ones are at the front, so counting them and finding when the next turns
/// slow looks only at those, not at every transfer in flight (this is asked on every turn of the
/// event loop while the queue is full). A finished transfer's entry is dropped when it reaches
/// the front; an entry is current while its transfer is in flight with the same request.
private struct StartOrder {
    private var entries: [(transfer: Transfer, request: Int)] = []
    private var head = 0

    /// Notes `transfer`, just handed to libcurl with its `startedAt` and `request` set.
    mutating func append(_ transfer: Transfer) {
        if entries.count >= 2048 { dropFinishedFront() }
        entries.append((transfer, transfer.request))
    }

    private func isCurrent(_ entry: (transfer: Transfer, request: Int)) -> Bool {
        entry.transfer.inFlight && entry.transfer.request == entry.request
    }

    /// Drops the entries of finished transfers from the front, and the storage they took once
    /// they are most of it.
    private mutating func dropFinishedFront() {
        while head < entries.count, !isCurrent(entries[head]) { head += 1 }
        if head >= 1024, head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }

    /// How many transfers in flight started `after` or longer before `now`, and when the next of
    /// the others turns slow (`nil` when none is left).
    mutating func slow(
        after: Duration, at now: ContinuousClock.Instant
    ) -> (count: Int, nextTurnsSlow: ContinuousClock.Instant?) {
        dropFinishedFront()
        var count = 0
        for entry in entries[head...] where isCurrent(entry) {
            let due = entry.transfer.startedAt + after
            if due > now { return (count, due) }
            count += 1
        }
        return (count, nil)
    }
}

/// Loading libcurl and `curl_global_init`, exactly once per process.
///
/// send-push does not link libcurl (see `LibcurlLoader.c`): it is loaded here, when the first
/// client is about to be made, so the tool's start, `--help`, usage errors and the foreground of
/// `--detach`/`--hook` never pay for mapping it and its dependent libraries.
package enum CurlGlobal {
    private static let loaded: Result<Void, LibcurlUnavailable> = {
        var reason = [CChar](repeating: 0, count: 512)
        guard pushkit_libcurl_load(&reason, reason.count) == 1 else {
            return .failure(
                LibcurlUnavailable(
                    reason: String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return .success(())
    }()

    /// Loads and initializes libcurl, once.
    /// - Throws: `LibcurlUnavailable` (exit 69) when libcurl.so.4 cannot be loaded.
    package static func load() throws(LibcurlUnavailable) {
        try loaded.get()
    }

    /// For the client's initializer: the caller has already called `load()`.
    static func initializeOnce() {
        guard case .success = loaded else {
            preconditionFailure("CurlGlobal.load() must succeed before a client is made")
        }
    }

    /// libcurl 7.88.x fails every request after the first on a reused prior-knowledge (`http://`)
    /// HTTP/2 connection with "Error in the HTTP2 framing layer" (curl issue #10634).
    static let priorKnowledgeReuseIsBroken: Bool = {
        // version_num is in every edition of the struct, so the first edition is enough.
        guard let info = curl_version_info(CURLVERSION_FIRST) else { return true }
        return (0x07_58_00..<0x08_00_00).contains(info.pointee.version_num)
    }()
}

/// libcurl could not be loaded at run time.
package struct LibcurlUnavailable: PushKitError {
    /// What the dynamic loader said.
    package let reason: String
    /// Always 69 (EX_UNAVAILABLE).
    package var exitStatus: ExitStatus { .unavailable }
    /// The loader's reason, and how to install libcurl.
    package var description: String {
        "cannot load libcurl (\(reason)); install it with: apt-get install libcurl4"
    }
}
