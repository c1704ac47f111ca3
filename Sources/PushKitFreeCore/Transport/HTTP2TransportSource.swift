/// Where a send gets its HTTP/2 client.
///
/// `PushKitFreeTransport.CurlTransportSource` is the one the tools use: it loads libcurl on first
/// use and makes a client per send (`send-push`) or keeps one open for the life of a server (so a
/// webhook costs a round trip, not a TLS handshake). Tests pass a source of scripted transports.
package protocol HTTP2TransportSource: AnyObject, Sendable {
    /// Makes sure a client can be made here (loads its libraries).
    /// - Throws: a `PushKitError` (exit 69) when the client's libraries are missing.
    func prepare() throws

    /// A client for one send.
    /// - Parameters:
    ///   - caFile: a CA bundle to trust besides the system's.
    ///   - proxy: the configured proxy URL; `nil` leaves the choice to the client's environment.
    ///   - connectTimeout: the TCP and TLS connect limit.
    func transport(caFile: String?, proxy: String?, connectTimeout: Duration) -> any HTTP2Transport

    /// A client of its own for a short exchange beside a send (an FCM access token from its token
    /// endpoint), never the client a server keeps: that one may be in its loop.
    func separateTransport(caFile: String?, proxy: String?, connectTimeout: Duration) -> any HTTP2Transport
}

extension HTTP2TransportSource {
    /// `transport(caFile:proxy:connectTimeout:)`, for sources that make a client per call.
    package func separateTransport(caFile: String?, proxy: String?, connectTimeout: Duration) -> any HTTP2Transport {
        transport(caFile: caFile, proxy: proxy, connectTimeout: connectTimeout)
    }
}
