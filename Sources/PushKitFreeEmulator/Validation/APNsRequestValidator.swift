#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import PushKitFreeCore

/// Judges an APNs provider API request by Apple's rules (see `docs/apns-emulator.md` and APNS.md),
/// without any I/O: method, path, headers and body in, `APNsRequestAssessment` out.
///
/// Checks run in this order and the first failure answers:
/// 1. method POST (405 MethodNotAllowed); path `/3/device/<token>` (404 BadPath,
///    400 MissingDeviceToken); no header repeated (400 DuplicateHeaders);
/// 2. provider token: present (403 MissingProviderToken), well formed, ES256, trusted `kid` and
///    `iss`, signature by the trusted key (403 InvalidProviderToken; an `iat` written as a numeric
///    string and a DER-encoded signature are accepted, as APNs accepts them, unless
///    `Trust.strictIssuedAt` and `Trust.strictSignature`), `iat` not older than
///    an hour (403 ExpiredProviderToken) nor more than 5 minutes ahead (403 InvalidProviderToken),
///    the key allowed in this environment (403 BadEnvironmentKeyIdInToken, `Trust.keyScopes`), the
///    key the connection is bound to: that of the first token accepted on it (403
///    UnrelatedKeyIdInToken), not a too-early replacement (429 TooManyProviderTokenUpdates);
/// 3. device token hex of even length (400 BadDeviceToken); `apns-id` a lowercase canonical UUID
///    (400 BadMessageId); topic present (400 MissingTopic); push type known (400 InvalidPushType);
///    the topic's bundle id one the key is scoped to (400 TopicDisallowed, `Trust.keyScopes`);
///    topic equal to the bundle id plus the push type's suffix (400 DeviceTokenNotForTopic);
///    priority 10, 5 or 1, and 5 for background (400 BadPriority); collapse id at most 64 bytes
///    (400 BadCollapseId); expiration a non-negative integer (400 BadExpirationDate);
/// 4. body: not empty (400 PayloadEmpty), within 4096 bytes or 5120 for voip (413 PayloadTooLarge),
///    a JSON object whose `aps`, when present, is an object (400 BadPayload); a payload without
///    `aps` is delivered, as APNs does, unless `Trust.requireAps`; with `Trust.strictPayload`, a
///    payload that breaks one of `StrictPayloadRules` for its push type (a critical sound, a
///    background push, an image) is refused too (400 BadPayload).
///
/// One validator serves one connection: it caches the verdict on each distinct token string, so a
/// token's signature is verified once, not per request. It is not thread-safe.
package final class APNsRequestValidator {
    /// What the server trusts.
    package struct Trust: Sendable {
        /// The public half of the provider key.
        package var publicKey: P256.Signing.PublicKey
        /// The key id tokens must name (`kid`).
        package var keyID: String
        /// The team id tokens must name (`iss`).
        package var teamID: String
        /// The app's bundle id; `nil` accepts any topic whose suffix fits the push type.
        package var bundleID: String?
        /// Refuse an `iat` written as a numeric string (APNs accepts it; `--strict-iat`).
        package var strictIssuedAt: Bool
        /// Refuse a DER-encoded token signature (`--strict-signature`), which APNs accepts.
        package var strictSignature = false
        /// Refuse a payload without an `aps` object (Apple's documentation asks for one, APNs
        /// delivers without; `--require-aps`).
        package var requireAps = false
        /// Refuse a payload that breaks one of `StrictPayloadRules` (a malformed critical sound, a
        /// background push that shows something, an image the app cannot attach), which APNs
        /// accepts and the device drops or mangles (`--strict-payload`).
        package var strictPayload = false
        /// More keys of the same team, by key id (`--trust-key`): tokens may name any of them.
        package var otherKeys: [String: P256.Signing.PublicKey] = [:]
        /// What each key may be used for, by key id; a key not listed works everywhere
        /// (`--key-environment`, `--key-topics`).
        package var keyScopes: [String: KeyScope] = [:]

        /// Every trusted key by key id: the configured one and `otherKeys`.
        package var publicKeys: [String: P256.Signing.PublicKey] {
            otherKeys.merging([keyID: publicKey]) { _, configured in configured }
        }

        /// Trusts tokens signed by `publicKey`'s private half for `keyID` and `teamID`.
        package init(
            publicKey: P256.Signing.PublicKey, keyID: String, teamID: String, bundleID: String?,
            strictIssuedAt: Bool = false
        ) {
            self.publicKey = publicKey
            self.keyID = keyID
            self.teamID = teamID
            self.bundleID = bundleID
            self.strictIssuedAt = strictIssuedAt
        }
    }

    /// How old a provider token may be, in seconds (one hour).
    package static let tokenLifetime = 3600
    /// How far in the future a token's `iat` may lie, in seconds, to allow for clock skew.
    package static let tokenClockSkew = 300
    /// The longest collapse id, in bytes.
    package static let maximumCollapseIDLength = 64
    /// How many distinct token strings the cache keeps before it starts over.
    static let tokenCacheLimit = 256

    /// The key, ids and bundle id requests are judged against.
    package let trust: Trust
    /// The environment this server plays, for keys limited to one.
    package let environment: APNsEnvironment
    /// Shared between connections; `nil` switches the token-update rate check off.
    package let tokenUpdates: ProviderTokenUpdateTracker?

    private final class CachedToken {
        let token: String
        let check: ProviderTokenCheck
        var admitted = false
        init(token: String, check: ProviderTokenCheck) {
            self.token = token
            self.check = check
        }
    }
    private var tokenCache: [String: CachedToken] = [:]
    /// The provider token this connection uses, and since when (for the per-connection update rule).
    private var connectionToken: ProviderTokenUpdateTracker.ConnectionToken?
    /// The key id of the first token accepted on this connection: APNs binds the connection to it.
    package private(set) var boundKeyID: String?
    private let trustedKeys: [String: P256.Signing.PublicKey]

    /// A validator for one connection.
    /// - Parameters:
    ///   - tokenUpdates: the tracker all connections share; `nil` for no 429 on token updates.
    ///   - environment: the environment the server plays.
    package init(trust: Trust, tokenUpdates: ProviderTokenUpdateTracker?, environment: APNsEnvironment = .production) {
        self.trust = trust
        self.tokenUpdates = tokenUpdates
        self.environment = environment
        trustedKeys = trust.publicKeys
    }

    /// Judges one request.
    /// - Parameters:
    ///   - headers: every header in the order received, pseudo-headers included or not (they are
    ///     skipped), so repeated names are visible.
    ///   - now: the time to judge token ages against.
    package func assess(
        method: String, path: String, headers: [(name: String, value: String)], body: [UInt8], now: Date
    ) -> APNsRequestAssessment {
        var result = APNsRequestAssessment()
        var authorization: String?
        var duplicated = false
        for (position, header) in headers.enumerated() {
            let name = header.name.utf8
            if name.first == UInt8(ascii: ":") { continue }
            if !duplicated {
                duplicated = headers[..<position].contains {
                    $0.name.utf8.count == name.count && $0.name.utf8.elementsEqual(name)
                }
            }
            if Self.equals(header.name, "authorization") {
                authorization = header.value
            } else if name.starts(with: "apns-".utf8) {
                if Self.equals(header.name, "apns-topic") {
                    result.topic = header.value
                } else if Self.equals(header.name, "apns-push-type") {
                    result.pushTypeHeader = header.value
                } else if Self.equals(header.name, "apns-priority") {
                    result.priorityHeader = header.value
                } else if Self.equals(header.name, "apns-collapse-id") {
                    result.collapseID = header.value
                } else if Self.equals(header.name, "apns-id") {
                    result.apnsID = header.value
                } else if Self.equals(header.name, "apns-expiration") {
                    result.expirationHeader = header.value
                }
            }
        }
        let devicePrefix = "/3/device/".utf8
        let isDevicePath = path.utf8.starts(with: devicePrefix) || Self.equals(path, "/3/device")
        if isDevicePath, path.utf8.count > devicePrefix.count {
            result.deviceToken = String(path.utf8.dropFirst(devicePrefix.count))
        }
        if let header = result.pushTypeHeader {
            result.pushType = APNsPushType(rawValue: header)
        } else {
            result.pushType = .alert
        }
        result.payloadSize = body.count
        if result.inspectPayload(body, strictPushType: trust.strictPayload ? result.pushType : nil) == .objectWithoutAps
        {
            if trust.requireAps {
                result.payloadProblem = "the payload has no \"aps\" object (refused by --require-aps; APNs delivers it)"
            } else {
                result.payloadNote =
                    "the payload has no \"aps\" object; APNs delivers it (VoIP payloads often have none; --require-aps refuses it)"
            }
        }
        let token = authorization.map(inspectToken)
        result.providerToken = token?.check
        result.rejection = firstProblem(
            method: method, isDevicePath: isDevicePath, duplicated: duplicated, token: token, body: body, now: now,
            result: &result)
        return result
    }

    /// Judges the `authorization` header of a request that is not a device push (a broadcast, a
    /// channel management call) exactly as `assess` judges a push's: the same token cache, checks
    /// and update rule. Fills `providerToken`, `providerTokenProblem`, `providerTokenNote` and
    /// `isAuthenticated` of `result`; returns the reason to refuse, if any.
    package func authenticate(
        authorization: String?, now: Date, into result: inout APNsRequestAssessment
    ) -> APNsReason? {
        guard let authorization else { return .missingProviderToken }
        let token = inspectToken(authorization)
        result.providerToken = token.check
        if let reason = authenticate(
            token, now: now, problem: &result.providerTokenProblem, note: &result.providerTokenNote)
        {
            return reason
        }
        result.isAuthenticated = true
        return nil
    }

    private func firstProblem(
        method: String, isDevicePath: Bool, duplicated: Bool, token: CachedToken?, body: [UInt8], now: Date,
        result: inout APNsRequestAssessment
    ) -> APNsRejection? {
        if method != "POST" { return APNsRejection(.methodNotAllowed) }
        guard isDevicePath else { return APNsRejection(.badPath) }
        guard let deviceToken = result.deviceToken else { return APNsRejection(.missingDeviceToken) }
        if duplicated { return APNsRejection(.duplicateHeaders) }
        guard let token else { return APNsRejection(.missingProviderToken) }
        if let reason = authenticate(
            token, now: now, problem: &result.providerTokenProblem, note: &result.providerTokenNote)
        {
            return APNsRejection(reason)
        }
        result.isAuthenticated = true
        if !Self.isHexOfEvenLength(deviceToken) { return APNsRejection(.badDeviceToken) }
        if let apnsID = result.apnsID, !APNsRequest.isCanonicalUUID(apnsID) { return APNsRejection(.badMessageID) }
        guard let topic = result.topic, !topic.isEmpty else { return APNsRejection(.missingTopic) }
        guard let pushType = result.pushType else { return APNsRejection(.invalidPushType) }
        // Empty scopes (the common case) cost nothing on the hot path.
        if !trust.keyScopes.isEmpty, let keyID = result.providerToken?.keyID, let scope = trust.keyScopes[keyID],
            !scope.allows(topic: topic, pushType: pushType)
        {
            result.providerTokenProblem =
                "key \(keyID) is scoped to \(scope.topics?.sorted().joined(separator: ", ") ?? "")"
                + " (--key-topics), not to \(topic)"
            return APNsRejection(.topicDisallowed)
        }
        if !topicFits(topic, pushType: pushType) { return APNsRejection(.deviceTokenNotForTopic) }
        if let text = result.priorityHeader {
            guard let priority = Int(text).flatMap(APNsPriority.init(rawValue:)), priority.isAllowed(for: pushType)
            else {
                return APNsRejection(.badPriority)
            }
        }
        if let collapseID = result.collapseID, collapseID.utf8.count > Self.maximumCollapseIDLength {
            return APNsRejection(.badCollapseID)
        }
        if let expiration = result.expirationHeader {
            guard let seconds = Int(expiration), seconds >= 0 else { return APNsRejection(.badExpirationDate) }
        }
        if body.isEmpty { return APNsRejection(.payloadEmpty) }
        if body.count > pushType.maximumPayloadSize { return APNsRejection(.payloadTooLarge) }
        if result.payloadProblem != nil { return APNsRejection(.badPayload) }
        return nil
    }

    /// Finds the check of the header's token in the cache (keyed by the whole header value, so a
    /// hit costs no copy), or checks the token, signature included, and caches the verdict.
    private func inspectToken(_ authorization: String) -> CachedToken {
        if let hit = tokenCache[authorization] { return hit }
        let cached: CachedToken
        if authorization.utf8.count > 7, authorization.prefix(7).lowercased() == "bearer " {
            let token = String(authorization.dropFirst(7))
            cached = CachedToken(
                token: token,
                check: ProviderTokenCheck.inspect(
                    token, keys: trustedKeys, teamID: trust.teamID, strictIssuedAt: trust.strictIssuedAt,
                    strictSignature: trust.strictSignature))
        } else {
            cached = CachedToken(
                token: "", check: ProviderTokenCheck(problem: "the authorization header is not \"bearer <token>\""))
        }
        if tokenCache.count >= Self.tokenCacheLimit { tokenCache.removeAll(keepingCapacity: true) }
        tokenCache[authorization] = cached
        return cached
    }

    /// Judges the token's authenticity, age and novelty; returns the reason to refuse it, if any.
    private func authenticate(
        _ inspected: CachedToken, now: Date, problem: inout String?, note: inout String?
    ) -> APNsReason? {
        let check = inspected.check
        note = check.note
        if let reason = check.problem {
            problem = reason
            return .invalidProviderToken
        }
        let age = Int(now.timeIntervalSince1970.rounded(.down)) - (check.issuedAt ?? 0)
        if age > Self.tokenLifetime {
            problem = "the token was issued \(age) seconds ago; APNs refuses tokens older than \(Self.tokenLifetime)"
            return .expiredProviderToken
        }
        if -age > Self.tokenClockSkew {
            problem = "the token's iat lies \(-age) seconds in the future"
            return .invalidProviderToken
        }
        let keyID = check.keyID ?? trust.keyID
        if !trust.keyScopes.isEmpty, let only = trust.keyScopes[keyID]?.environment, only != environment {
            problem = "key \(keyID) is limited to \(only.rawValue) (--key-environment); this is \(environment.rawValue)"
            return .badEnvironmentKeyIDInToken
        }
        if let boundKeyID, boundKeyID != keyID {
            problem =
                "this connection is bound to key \(boundKeyID), the first accepted on it; "
                + "key \(keyID) needs a new connection"
            return .unrelatedKeyIDInToken
        }
        if let tokenUpdates, !inspected.admitted || connectionToken?.token != inspected.token {
            switch tokenUpdates.admit(
                token: inspected.token, keyID: keyID, teamID: trust.teamID, now: now, connection: &connectionToken
            ) {
            case .refused(let reason):
                problem = reason
                return .tooManyProviderTokenUpdates
            case .accepted(let updateNote):
                if let updateNote { note = [note, updateNote].compactMap { $0 }.joined(separator: "; ") }
            }
        }
        inspected.admitted = true
        boundKeyID = keyID
        return nil
    }

    private func topicFits(_ topic: String, pushType: APNsPushType) -> Bool {
        if let bundleID = trust.bundleID {
            return topic == pushType.topic(forBundleID: bundleID)
        }
        let suffix = pushType.topicSuffix
        return suffix.isEmpty || (topic.hasSuffix(suffix) && topic.utf8.count > suffix.utf8.count)
    }

    /// Byte-wise equality with a literal: header names are lowercase ASCII, so no Unicode
    /// comparison is needed (this runs for every header of every request).
    @inline(__always)
    static func equals(_ text: String, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard text.utf8.count == count else { return false }
        return text.utf8.elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: count))
    }

    /// Whether `text` is a non-empty run of hex digits of even length (a device token).
    package static func isHexOfEvenLength(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count % 2 == 0 else { return false }
        return utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
        }
    }

}
