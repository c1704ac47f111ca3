extension Configuration {
    /// Which proxy libcurl uses to reach `url`, and why (the configured proxy, an environment
    /// variable, or none; and whether `no_proxy`/`NO_PROXY` exempts the host).
    package func proxyResolution(for url: String) -> ProxyResolution {
        ProxyResolution.resolve(url: url, configured: proxy, environment: proxyEnvironment)
    }
}
