/// Something that sends HTTP/2 requests, multiplexed, and reports each answer as it completes.
///
/// The delivery logic in the core talks to this protocol; `PushKitFreeTransport.CurlHTTP2Client`
/// (libcurl) is the implementation the tools use. Keeping libcurl out of the core keeps it out of
/// `apns-jwt` and `register-apns` too: loading libcurl and its dependencies costs several
/// milliseconds at every start.
package protocol HTTP2Transport: AnyObject {
    /// Sends what `next` supplies and reports one response per request sent, in completion order,
    /// until `next` is exhausted and nothing is in flight, or `deadline` passes.
    ///
    /// `next` is asked, with the current time, for as many requests as the transport has room for,
    /// again after every response (whose handler may have scheduled more, such as a retry), and
    /// again when the time it named in `.notBefore` comes. So a request that must wait (a retry after
    /// its back-off) waits on its own while others are in flight. At `deadline`, requests in flight
    /// fail with `TransportFailure.Kind.timeout`; what `next` still holds is the caller's to report.
    ///
    /// `cutoff`, asked on every turn, is an earlier end the caller may set while the run goes on
    /// (an interrupt, `RunInterruption`): at that time the requests in flight fail with
    /// `TransportFailure.Kind.interrupted`.
    func perform(
        deadline: ContinuousClock.Instant, cutoff: () -> ContinuousClock.Instant?,
        next: (ContinuousClock.Instant) -> HTTP2RequestSupply, onResponse: (HTTP2Response) -> Void)

    /// Sends the requests supplied from now on over a connection opened after this call, never over
    /// one that carried a request before it.
    ///
    /// APNs binds a connection to the key of the first provider token it accepted there and answers
    /// `403 UnrelatedKeyIdInToken` to a token of an unrelated key on it: only a new connection can
    /// carry that token. Callable from `perform`'s `onResponse`; the transport then stops asking
    /// `next` until the requests in flight are answered, closes its connections and opens a new one.
    func openNewConnection()
}

/// What a request source has for a transport at a given moment.
package enum HTTP2RequestSupply: Sendable {
    /// Send this now.
    case request(HTTP2Request)
    /// Nothing now; ask again at this time (or after the next response).
    case notBefore(ContinuousClock.Instant)
    /// Nothing now, and nothing scheduled: ask again only after a response.
    case exhausted
}

extension HTTP2Transport {
    /// `perform(deadline:cutoff:next:onResponse:)` with no earlier end.
    package func perform(
        deadline: ContinuousClock.Instant, next: (ContinuousClock.Instant) -> HTTP2RequestSupply,
        onResponse: (HTTP2Response) -> Void
    ) {
        perform(deadline: deadline, cutoff: { nil }, next: next, onResponse: onResponse)
    }

    /// Sends every request of `requests` (taken as room frees up) and reports one response each,
    /// stopping at `deadline`; requests not yet handed to the network then fail with `.timeout`
    /// and code 0.
    package func perform<Requests: Sequence<HTTP2Request>>(
        _ requests: Requests, deadline: ContinuousClock.Instant,
        onResponse: (HTTP2Response) -> Void
    ) {
        var queue = requests.makeIterator()
        perform(
            deadline: deadline, next: { _ in queue.next().map(HTTP2RequestSupply.request) ?? .exhausted },
            onResponse: onResponse)
        while let request = queue.next() {
            onResponse(
                HTTP2Response(
                    tag: request.tag,
                    result: .failure(
                        TransportFailure(kind: .timeout, code: 0, message: "not sent: the deadline passed first"))))
        }
    }

    /// Sends every request and returns all responses (for small batches and tests).
    package func perform(_ requests: [HTTP2Request], deadline: ContinuousClock.Instant) -> [HTTP2Response] {
        var responses: [HTTP2Response] = []
        responses.reserveCapacity(requests.count)
        perform(requests, deadline: deadline) { responses.append($0) }
        return responses
    }
}
