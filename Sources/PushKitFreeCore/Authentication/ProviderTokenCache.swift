#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reuses provider tokens across processes through a small JSON file in the state directory.
///
/// APNs answers `429 TooManyProviderTokenUpdates` when a key's token changes more often than every
/// 20 minutes and `403 ExpiredProviderToken` once a token is an hour old. The tools run as separate
/// short-lived processes, so the token lives in `provider-tokens.json` (mode 0600), keyed by team id,
/// key id and key fingerprint, and is reused while younger than `reuseLimit` (50 minutes).
///
/// Reads take no lock (the file is only ever replaced atomically). Minting takes an exclusive lock on
/// `provider-tokens.json.lock` and re-reads first, so processes that start together share one token.
package struct ProviderTokenCache: Sendable {
    /// How long a token is reused, in seconds: 50 minutes, well inside APNs' one-hour limit.
    package static let reuseLimit = 50 * 60
    /// Tokens whose `iat` is this many seconds in the future are treated as stale (the clock went back).
    package static let futureTolerance = 60

    /// The cache file.
    package let path: String
    /// The clock that dates new tokens and judges whether a cached one is fresh; tests inject one.
    package let clock: any WallClock

    /// A cache kept in the file at `path`; the lock file is `path` plus `.lock`.
    package init(path: String, clock: any WallClock = SystemClock()) {
        self.path = path
        self.clock = clock
    }

    /// What the cache handed out.
    package struct Lease: Sendable {
        /// The token to send.
        package let token: ProviderToken
        /// `true` when the token was minted by this call.
        package let minted: Bool
        /// Set when the token could not be stored; the next run will mint again.
        package let warning: String?
    }

    /// A token for `credentials`: the cached one while it is fresh, else a newly minted one.
    package func token(for credentials: ProviderCredentials) throws -> Lease {
        if let problem = directoryProblem { return try uncached(credentials, because: problem) }
        if let cached = try? readEntries()[credentials.cacheKey], isFresh(cached) {
            return Lease(token: cached, minted: false, warning: nil)
        }
        return try mint(for: credentials) { current in
            current.map(isFresh) ?? false
        }
    }

    /// Mints a new token because APNs rejected the cached one (`ExpiredProviderToken`,
    /// `InvalidProviderToken`) or the user asked (`apns-jwt --refresh`).
    ///
    /// - Parameter rejected: the token APNs refused. When given, and another process has already
    ///   replaced it, that newer token is returned instead of minting yet another one.
    package func refresh(for credentials: ProviderCredentials, rejected: String? = nil) throws -> Lease {
        try mint(for: credentials) { current in
            guard let rejected, let current else { return false }
            return current.compact != rejected && isFresh(current)
        }
    }

    private func isFresh(_ token: ProviderToken) -> Bool {
        let age = token.age(at: clock.now())
        return age >= -Self.futureTolerance && age < Self.reuseLimit
    }

    /// What makes the cache's directory unsafe (`PosixFile.unsafeParentDirectoryProblem`).
    private var directoryProblem: String? { PosixFile.unsafeParentDirectoryProblem(of: path) }

    /// A newly signed token, not cached because of `problem`, with a warning that says how to fix it.
    private func uncached(_ credentials: ProviderCredentials, because problem: String) throws -> Lease {
        Lease(
            token: try sign(credentials), minted: true,
            warning: "provider token not cached (the token cache is not used in a directory others can write to: "
                + "\(problem)); every run will sign a new one")
    }

    /// Under the lock: re-read, keep the current token when `keep` says so, otherwise sign and store.
    private func mint(for credentials: ProviderCredentials, keep: (ProviderToken?) -> Bool) throws -> Lease {
        if let problem = directoryProblem { return try uncached(credentials, because: problem) }
        let lock: FileLock
        do {
            lock = try FileLock.forCache(at: path)
        } catch {
            let token = try sign(credentials)
            return Lease(
                token: token, minted: true,
                warning: "provider token not cached (\(error)); every run will sign a new one")
        }
        return try withExtendedLifetime(lock) {
            var entries = (try? readEntries()) ?? [:]
            if let current = entries[credentials.cacheKey], keep(current) {
                return Lease(token: current, minted: false, warning: nil)
            }
            let token = try sign(credentials)
            let now = clock.now()
            entries = entries.filter { $0.value.age(at: now) < 3600 }
            entries[credentials.cacheKey] = token
            do {
                try PosixFile.replaceAtomically(path, with: Self.serialize(entries))
            } catch {
                return Lease(
                    token: token, minted: true,
                    warning: "provider token not cached (\(error)); every run will sign a new one")
            }
            return Lease(token: token, minted: true, warning: nil)
        }
    }

    private func sign(_ credentials: ProviderCredentials) throws -> ProviderToken {
        let issuedAt = Int(clock.now().timeIntervalSince1970.rounded(.down))
        return try ProviderToken.sign(
            key: try credentials.signingKey(), keyID: credentials.keyID, teamID: credentials.teamID, issuedAt: issuedAt)
    }

    /// The cached tokens by cache key; an unreadable or corrupt cache, or one in an unsafe directory,
    /// reads as empty (it is only a cache).
    func readEntries() throws -> [String: ProviderToken] {
        guard directoryProblem == nil, let data = try PosixFile.readIfPresent(path),
            let tokens = try JSONValue.parse(data)["tokens"]?.objectValue
        else { return [:] }
        var entries: [String: ProviderToken] = [:]
        for (key, value) in tokens {
            if let compact = value["token"]?.stringValue, let issuedAt = value["issued_at"]?.integerValue {
                entries[key] = ProviderToken(compact: compact, issuedAt: issuedAt)
            }
        }
        return entries
    }

    /// Whether a token for `credentials`' cache key is stored, fresh or not (tokens leave the cache an
    /// hour after they were signed).
    func holdsToken(for credentials: ProviderCredentials) -> Bool {
        peek(for: credentials) != nil
    }

    /// The cached token for `credentials` without minting, fresh or not (for `apns-jwt check`).
    package func peek(for credentials: ProviderCredentials) -> ProviderToken? {
        (try? readEntries())?[credentials.cacheKey]
    }

    static func serialize(_ entries: [String: ProviderToken]) -> Data {
        let tokens = entries.mapValues { token in
            JSONValue.object(["token": .string(token.compact), "issued_at": .number(Double(token.issuedAt))])
        }
        return JSONValue.object(["version": .number(1), "tokens": .object(tokens)]).serialized(pretty: true)
    }
}
