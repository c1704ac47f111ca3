/// Where a run gets its provider token, and a new one when APNs rejects it.
package protocol ProviderTokenSource {
    /// The token to use now (the cached one while fresh).
    func currentToken() throws -> String
    /// A replacement for `rejected`, which APNs answered 403 ExpiredProviderToken or InvalidProviderToken.
    func replacement(for rejected: String) throws -> String
}

/// The shared token cache as a token source: one token per run, reused across runs.
package struct CachedProviderTokens: ProviderTokenSource {
    /// The token cache shared with other runs.
    package let cache: ProviderTokenCache
    /// The key and ids the tokens are signed with.
    package let credentials: ProviderCredentials
    /// Called with the cache's warning (e.g. the state directory is not writable).
    package let warn: (String) -> Void

    /// Tokens for `credentials` from `cache`, passing the cache's warnings to `warn`.
    package init(cache: ProviderTokenCache, credentials: ProviderCredentials, warn: @escaping (String) -> Void) {
        self.cache = cache
        self.credentials = credentials
        self.warn = warn
    }

    /// The cached token while it is fresh, else a newly signed one.
    package func currentToken() throws -> String {
        let lease = try cache.token(for: credentials)
        if let warning = lease.warning { warn(warning) }
        return lease.token.compact
    }

    /// A newer token than `rejected`: one another process signed meanwhile, else a newly signed one.
    package func replacement(for rejected: String) throws -> String {
        let lease = try cache.refresh(for: credentials, rejected: rejected)
        if let warning = lease.warning { warn(warning) }
        return lease.token.compact
    }
}
