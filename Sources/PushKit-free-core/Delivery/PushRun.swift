/// One `send-push` run wired together: provider token from the shared cache, one HTTP/2 client,
/// delivery with retries, then the registry bookkeeping (prune, environments, last delivery).
public struct PushRun {
    public let configuration: Configuration
    public let policy: DeliveryPolicy

    public init(configuration: Configuration, policy: DeliveryPolicy) {
        self.configuration = configuration
        self.policy = policy
    }

    /// Sends `request` to `targets` and returns the report.
    /// - Parameter warn: receives non-fatal problems (token not cached, registry not updated).
    /// - Throws: when the provider key or ids, or the CA file, are unusable (exit 66/78), before
    ///   anything is sent.
    /// - Parameter makeTransport: builds the HTTP/2 client from the CA file to add, the configured
    ///   proxy URL (`nil`: the client leaves the choice to libcurl's environment variables) and the
    ///   connect timeout (`send-push` passes libcurl's).
    /// - Parameter credentials: the provider key and ids when the caller already loaded them
    ///   (`--detach` checks them before detaching); `nil` loads them from the configuration.
    public func send(_ request: APNsRequest, to targets: [DeliveryTarget], credentials loaded: ProviderCredentials? = nil,
                     makeTransport: (_ caFile: String?, _ proxy: String?, _ connectTimeout: Duration) -> any HTTP2Transport,
                     warn: @escaping (String) -> Void) throws -> DeliveryReport {
        let started = ContinuousClock.now
        try CertificateAuthorityFile.check(configuration.caFile)
        let credentials = try loaded ?? ProviderCredentials.load(from: configuration)
        let tokens = CachedProviderTokens(cache: ProviderTokenCache(path: configuration.tokenCachePath), credentials: credentials, warn: warn)
        let configuration = self.configuration
        var results: [DeliveryResult]
        do {
            let delivery = PushDelivery(client: makeTransport(configuration.caFile?.value, configuration.proxy?.value, min(policy.connectTimeout, policy.timeout)),
                                        baseURL: { configuration.baseURL(for: $0).value }, tokens: tokens,
                                        policy: policy, defaultEnvironment: configuration.environment.value)
            results = try delivery.deliver(request, to: targets)
        } // The client and its libcurl handles are freed here, before the registry is read again: peak memory.
        nameProxies(in: &results)
        if targets.contains(where: { $0.deviceID != nil }) {
            do {
                try RegistryBookkeeping.apply(&results, to: DeviceRegistry(path: configuration.stateFile.value))
            } catch {
                warn("the registry was not updated: \(error)")
            }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return DeliveryReport(results: results, seconds: seconds)
    }

    /// Says which proxy the requests that got no answer went through, with credentials masked (also
    /// in libcurl's message, which can quote the proxy URL), so "cannot connect" names the proxy.
    /// The proxy is resolved once per environment, not once per device.
    private func nameProxies(in results: inout [DeliveryResult]) {
        var proxies: [APNsEnvironment: Setting<String>?] = [:]
        for index in results.indices where results[index].status == 0 {
            guard let reason = results[index].reason else { continue }
            let environment = results[index].environment
            if proxies[environment] == nil {
                proxies[environment] = .some(configuration.proxyResolution(for: configuration.baseURL(for: environment).value).proxy)
            }
            guard let proxy = proxies[environment] ?? nil else { continue }
            let shown = ProxyAddress.masked(proxy.value)
            results[index].reason = "through proxy \(shown) (from \(proxy.source)): " + reason.replacing(proxy.value, with: shown)
        }
    }
}
