#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a run gets its FCM access token: the cached one while usable, else one fetched from the
/// account's token endpoint (an RS256 assertion traded by the JWT-bearer grant), stored for the
/// next run; and a new one, once, when FCM answers 401 `UNAUTHENTICATED`.
package final class FCMAccessTokens {
    /// The account the tokens are for.
    package let account: FCMServiceAccount
    private let cache: FCMAccessTokenCache
    private let post: (HTTP2Request) -> Result<HTTP2Answer, TransportFailure>
    private let warn: (String) -> Void
    private let key: String

    /// Tokens for `account`, kept in `cache`.
    /// - Parameters:
    ///   - post: sends one request to the token endpoint and returns its answer (a transport of
    ///     its own: the token endpoint is another host than FCM's, and a token may be needed while
    ///     the delivery's transport is busy).
    ///   - warn: the cache's warnings (a state directory that cannot be written).
    package init(
        account: FCMServiceAccount, cache: FCMAccessTokenCache,
        post: @escaping (HTTP2Request) -> Result<HTTP2Answer, TransportFailure>, warn: @escaping (String) -> Void
    ) {
        self.account = account
        self.cache = cache
        self.post = post
        self.warn = warn
        key = FCMAccessTokenCache.key(for: account)
    }

    /// The token to send with now.
    /// - Throws: `FCMAuthenticationError` when none can be had.
    package func current() throws(FCMAuthenticationError) -> String {
        if let cached = cache.usableToken(for: key) { return cached.token }
        let now = cache.clock.now()
        return try store(cache.fetch(for: key, keep: { $0?.isUsable(at: now) ?? false }, fetch))
    }

    /// A token other than `rejected`, which FCM refused: one another process fetched meanwhile,
    /// else a new one.
    /// - Throws: `FCMAuthenticationError` when none can be had.
    package func replacement(for rejected: String) throws(FCMAuthenticationError) -> String {
        let now = cache.clock.now()
        return try store(
            cache.fetch(for: key, keep: { $0.map { $0.token != rejected && $0.isUsable(at: now) } ?? false }, fetch))
    }

    private func store(_ lease: (token: FCMAccessToken, warning: String?)) -> String {
        if let warning = lease.warning { warn(warning) }
        return lease.token.token
    }

    /// Asks the token endpoint for a new token.
    private func fetch() throws(FCMAuthenticationError) -> FCMAccessToken {
        let assertion = try FCMAssertion(account: account, now: cache.clock.now())
        let request = FCMAccessTokenRequest(account: account, assertion: assertion).http2Request(tag: 0)
        switch post(request) {
        case .failure(let failure):
            throw FCMAuthenticationError(
                "cannot reach the token endpoint \(account.tokenURI) for \(account.clientEmail): \(failure.message)",
                exitStatus: failure.kind == .tls ? .configuration : .unavailable)
        case .success(let answer):
            return try FCMAccessToken(
                answer: answer, receivedAt: cache.clock.now(), endpoint: account.tokenURI,
                account: account.clientEmail)
        }
    }
}
