import PushKitFreeCore

/// The libcurl HTTP/2 client as the send pipeline's transport source.
///
/// `send-push` makes one client per run (`keepsClient: false`): it is freed, with its handles,
/// before the registry is rewritten. A server keeps one (`keepsClient: true`) for its life, so the
/// connection to APNs stays open between sends, as Apple asks of providers. A kept client is driven
/// by one thread at a time: the caller's (the server sends from one thread of its own).
package final class CurlTransportSource: HTTP2TransportSource, @unchecked Sendable {
    private let keepsClient: Bool
    private var kept: CurlHTTP2Client?

    /// A source that makes a client for each send, or with `keepsClient` one client kept until `close()`.
    package init(keepsClient: Bool) {
        self.keepsClient = keepsClient
    }

    /// Loads libcurl, once per process.
    /// - Throws: `LibcurlUnavailable` (exit 69) when libcurl.so.4 cannot be loaded.
    package func prepare() throws {
        try CurlGlobal.load()
    }

    /// The kept client when there is one (it keeps the settings it was made with), else a new client with
    /// these settings, kept when `keepsClient`.
    package func transport(caFile: String?, proxy: String?, connectTimeout: Duration) -> any HTTP2Transport {
        if let kept { return kept }
        let made = CurlHTTP2Client(caFile: caFile, proxy: proxy, connectTimeout: connectTimeout)
        if keepsClient { kept = made }
        return made
    }

    /// A new client, never kept.
    package func separateTransport(caFile: String?, proxy: String?, connectTimeout: Duration) -> any HTTP2Transport {
        CurlHTTP2Client(caFile: caFile, proxy: proxy, connectTimeout: connectTimeout)
    }

    /// Closes the kept client's connection.
    package func close() {
        kept = nil
    }
}
