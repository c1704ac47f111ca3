#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reuses FCM access tokens across processes through `fcm-access-token.json` in the state
/// directory (mode 0600), as `ProviderTokenCache` reuses APNs provider tokens.
///
/// A token is good for an hour; each costs a round trip to the token endpoint, so the tools, which
/// run as separate short-lived processes, share one until a minute before it expires
/// (`FCMAccessToken.isUsable`). Entries are keyed by the account's client email, its token
/// endpoint and a digest of its public key, so a new key or a test server never gets another's
/// token. Reads take no lock (the file is only ever replaced atomically); fetching takes an
/// exclusive lock on `fcm-access-token.json.lock` and re-reads first, so processes that start
/// together fetch once. In a directory others can write to, the file is neither read nor written.
package struct FCMAccessTokenCache: Sendable {
    /// The cache file.
    package let path: String
    /// The clock that judges whether a cached token is still good; tests inject one.
    package let clock: any WallClock

    /// A cache kept in the file at `path`; the lock file is `path` plus `.lock`.
    package init(path: String, clock: any WallClock = SystemClock()) {
        self.path = path
        self.clock = clock
    }

    /// The cache in `stateDirectory`.
    package init(stateDirectory: String, clock: any WallClock = SystemClock()) {
        self.init(path: stateDirectory + "/fcm-access-token.json", clock: clock)
    }

    /// The key `account`'s token is stored under: a digest of its client email, token endpoint and
    /// public key.
    package static func key(for account: FCMServiceAccount) -> String {
        let publicKey = account.privateKey.publicKey.derRepresentation
        return String(
            HexDigest.sha256(
                bytes: Array("\(account.clientEmail)\n\(account.tokenURI)\n".utf8) + Array(publicKey)
            ).prefix(32))
    }

    /// What makes the cache's directory unsafe (`PosixFile.unsafeParentDirectoryProblem`).
    var directoryProblem: String? { PosixFile.unsafeParentDirectoryProblem(of: path) }

    /// The cached token for `key` while it is usable; `nil` otherwise (an unreadable or corrupt file
    /// reads as empty: it is only a cache).
    package func usableToken(for key: String) -> FCMAccessToken? {
        guard let token = readEntries()[key], token.isUsable(at: clock.now()) else { return nil }
        return token
    }

    /// Under the lock: `keep` is shown the current entry for `key` and may return it; else `fetch`
    /// is called and its token stored.
    /// - Returns: the token, and a warning when it could not be stored.
    package func fetch(
        for key: String, keep: (FCMAccessToken?) -> Bool,
        _ fetch: () throws(FCMAuthenticationError) -> FCMAccessToken
    ) throws(FCMAuthenticationError) -> (token: FCMAccessToken, warning: String?) {
        if let problem = directoryProblem {
            return (
                try fetch(),
                "FCM access token not cached (the cache is not used in a directory others can write to: "
                    + "\(problem)); every run will ask for a new one"
            )
        }
        let lock: FileLock
        do {
            lock = try FileLock.forCache(at: path)
        } catch {
            return (try fetch(), "FCM access token not cached (\(error)); every run will ask for a new one")
        }
        return try withExtendedLifetime(lock) { () throws(FCMAuthenticationError) in
            var entries = readEntries()
            if let current = entries[key], keep(current) { return (current, nil) }
            let token = try fetch()
            let now = clock.now()
            entries = entries.filter { $0.value.expiresAt > now }
            entries[key] = token
            do {
                try PosixFile.replaceAtomically(path, with: Self.serialize(entries))
            } catch {
                return (token, "FCM access token not cached (\(error)); every run will ask for a new one")
            }
            return (token, nil)
        }
    }

    /// The cached tokens by key.
    func readEntries() -> [String: FCMAccessToken] {
        guard directoryProblem == nil, let data = try? PosixFile.readIfPresent(path),
            let tokens = (try? JSONValue.parse(data))?["tokens"]?.objectValue
        else { return [:] }
        var entries: [String: FCMAccessToken] = [:]
        for (key, value) in tokens {
            if let token = value["token"]?.stringValue, !token.isEmpty, !HeaderValue.hasControlCharacter(token),
                let expiresAt = value["expires_at"]?.numberValue
            {
                entries[key] = FCMAccessToken(token: token, expiresAt: Date(timeIntervalSince1970: expiresAt))
            }
        }
        return entries
    }

    static func serialize(_ entries: [String: FCMAccessToken]) -> Data {
        let tokens = entries.mapValues { token in
            JSONValue.object([
                "token": .string(token.token),
                "expires_at": .number(token.expiresAt.timeIntervalSince1970.rounded(.down)),
            ])
        }
        return JSONValue.object(["version": .number(1), "tokens": .object(tokens)]).serialized(pretty: true)
    }
}
