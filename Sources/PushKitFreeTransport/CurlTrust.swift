import CCurlShim

/// The trust and proxy settings every easy handle here takes, for APNs, FCM, the token endpoints
/// and the endpoint client alike: peers verified, `ca_file` trusted beside the system's CAs (for an
/// `https://` proxy too), and the configured proxy.
enum CurlTrust {
    /// Sets them on `handle`.
    /// - Parameters:
    ///   - caFile: a PEM bundle trusted in addition to `/etc/ssl/certs`; `nil`: the system's alone.
    ///   - proxy: the proxy URL; `nil` leaves libcurl to read `https_proxy`, `all_proxy` and
    ///     `no_proxy` itself (a proxy set here replaces them except `no_proxy`, which still
    ///     exempts hosts).
    static func apply(caFile: String?, proxy: String?, to handle: UnsafeMutableRawPointer?) {
        pushkit_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        pushkit_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile {
            caFile.withCString { _ = pushkit_easy_setopt_string(handle, CURLOPT_CAINFO, $0) }
            // CAINFO replaces the default bundle; the system directory keeps public CAs trusted too.
            "/etc/ssl/certs".withCString { _ = pushkit_easy_setopt_string(handle, CURLOPT_CAPATH, $0) }
            // The same trust for an https:// proxy, which libcurl verifies with its own settings.
            caFile.withCString { _ = pushkit_easy_setopt_string(handle, CURLOPT_PROXY_CAINFO, $0) }
            "/etc/ssl/certs".withCString { _ = pushkit_easy_setopt_string(handle, CURLOPT_PROXY_CAPATH, $0) }
        }
        if let proxy {
            proxy.withCString { _ = pushkit_easy_setopt_string(handle, CURLOPT_PROXY, $0) }
        }
    }
}
