/// Something that sends HTTP/2 requests, multiplexed, and reports each answer as it completes.
///
/// The delivery logic in the core talks to this protocol; `PushKitFreeTransport.CurlHTTP2Client`
/// (libcurl) is the implementation the tools use. Keeping libcurl out of the core keeps it out of
/// `apns-jwt` and `register-apns` too: loading libcurl and its dependencies costs several
/// milliseconds at every start.
public protocol HTTP2Transport: AnyObject {
    /// Sends every request and reports one response per request, in completion order, stopping at
    /// `deadline` (requests still unanswered then fail with `TransportFailure.Kind.timeout`).
    func perform<Requests: Sequence<HTTP2Request>>(_ requests: Requests, deadline: ContinuousClock.Instant,
                                                   onResponse: (HTTP2Response) -> Void)
}
