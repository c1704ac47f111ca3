/// Where a run gets its provider token, and a new one when APNs rejects it.
package protocol ProviderTokenSource {
    /// The token to use now (the cached one while fresh).
    func currentToken() throws -> String
    /// A replacement for `rejected`, which APNs answered 403 ExpiredProviderToken or InvalidProviderToken.
    func replacement(for rejected: String) throws -> String
}

/// The shared token cache as a token source: one token per run, reused across runs.
package struct CachedProviderTokens: ProviderTokenSource {
    package let cache: ProviderTokenCache
    package let credentials: ProviderCredentials
    /// Called with the cache's warning (e.g. the state directory is not writable).
    package let warn: (String) -> Void

    package init(cache: ProviderTokenCache, credentials: ProviderCredentials, warn: @escaping (String) -> Void) {
        self.cache = cache
        self.credentials = credentials
        self.warn = warn
    }

    package func currentToken() throws -> String {
        let lease = try cache.token(for: credentials)
        if let warning = lease.warning { warn(warning) }
        return lease.token.compact
    }

    package func replacement(for rejected: String) throws -> String {
        let lease = try cache.refresh(for: credentials, rejected: rejected)
        if let warning = lease.warning { warn(warning) }
        return lease.token.compact
    }
}
