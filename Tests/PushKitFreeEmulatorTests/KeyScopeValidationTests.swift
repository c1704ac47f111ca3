import Crypto
import Foundation
import Testing
import PushKitFreeCore
@testable import PushKitFreeEmulator

/// Keys limited to an environment or to topics, and connections bound to their first key, as APNs
/// answers them since keys can be scoped (2025).
@Suite("APNs request validator: key scope")
struct KeyScopeValidationTests {
    static let otherKey = ProviderKey(privateKey: P256.Signing.PrivateKey())
    static let otherKeyID = "FGHIJ67890"

    static func validator(
        scopes: [String: KeyScope] = [:], environment: APNsEnvironment = .production, bundleID: String? = nil,
        tracker: ProviderTokenUpdateTracker? = nil
    ) -> APNsRequestValidator {
        var trust = APNsRequestValidator.Trust(
            publicKey: RequestFixture.key.privateKey.publicKey, keyID: RequestFixture.keyID,
            teamID: RequestFixture.teamID, bundleID: bundleID)
        trust.otherKeys[otherKeyID] = otherKey.privateKey.publicKey
        trust.keyScopes = scopes
        return APNsRequestValidator(trust: trust, tokenUpdates: tracker, environment: environment)
    }

    static let otherKeysToken = RequestFixture.token(key: otherKey, keyID: otherKeyID)

    @Test("a key limited to sandbox is answered 403 BadEnvironmentKeyIdInToken in production, accepted in sandbox")
    func environmentScope() {
        let scopes = [RequestFixture.keyID: KeyScope(environment: .sandbox)]
        let refused = RequestFixture().assess(with: Self.validator(scopes: scopes, environment: .production))
        #expect(refused.rejection == APNsRejection(status: 403, reason: .badEnvironmentKeyIDInToken))
        #expect(!refused.isAuthenticated, "the stream limit is not raised for a key refused here")
        #expect(refused.providerTokenProblem?.contains("limited to sandbox") == true)
        #expect(RequestFixture().assess(with: Self.validator(scopes: scopes, environment: .sandbox)).isAccepted)
        #expect(RequestFixture().assess(with: Self.validator(environment: .sandbox)).isAccepted, "unscoped: both")
    }

    @Test("a connection is bound to the first key accepted on it: another key is 403 UnrelatedKeyIdInToken there")
    func connectionBoundToFirstKey() {
        let connection = Self.validator()
        #expect(RequestFixture().assess(with: connection).isAccepted)
        #expect(connection.boundKeyID == RequestFixture.keyID)
        let unrelated = RequestFixture(token: Self.otherKeysToken).assess(with: connection)
        #expect(unrelated.rejection == APNsRejection(status: 403, reason: .unrelatedKeyIDInToken))
        #expect(unrelated.providerTokenProblem?.contains("bound to key \(RequestFixture.keyID)") == true)
        #expect(
            RequestFixture(token: Self.otherKeysToken).assess(with: Self.validator()).isAccepted, "a new connection")
        let newTokenSameKey = RequestFixture(token: RequestFixture.token(age: 30))
        #expect(newTokenSameKey.assess(with: connection).isAccepted, "the same key's next token is related")
    }

    @Test("a key refused for its environment does not bind the connection")
    func refusedKeyDoesNotBind() {
        let connection = Self.validator(scopes: [RequestFixture.keyID: KeyScope(environment: .sandbox)])
        #expect(RequestFixture().assess(with: connection).rejection?.reason == .badEnvironmentKeyIDInToken)
        #expect(connection.boundKeyID == nil)
        #expect(RequestFixture(token: Self.otherKeysToken).assess(with: connection).isAccepted)
    }

    @Test("UnrelatedKeyIdInToken comes before the per-connection token-update rule (not 429)")
    func unrelatedBeforeTokenUpdates() {
        let connection = Self.validator(tracker: ProviderTokenUpdateTracker())
        #expect(RequestFixture().assess(with: connection).isAccepted)
        #expect(
            RequestFixture(token: Self.otherKeysToken).assess(with: connection).rejection?.reason
                == .unrelatedKeyIDInToken)
    }

    @Test("a topic-specific key pushes to its bundle ids, with any push type's suffix; others are 400 TopicDisallowed")
    func topicScope() {
        let scopes = [RequestFixture.keyID: KeyScope(topics: ["com.example.app"])]
        #expect(RequestFixture().assess(with: Self.validator(scopes: scopes)).isAccepted)
        var voip = RequestFixture()
        voip.set("apns-push-type", "voip")
        voip.set("apns-topic", "com.example.app.voip")
        #expect(voip.assess(with: Self.validator(scopes: scopes)).isAccepted)
        var other = RequestFixture()
        other.set("apns-topic", "com.example.other")
        let refused = other.assess(with: Self.validator(scopes: scopes))
        #expect(refused.rejection == APNsRejection(status: 400, reason: .topicDisallowed))
        #expect(
            refused.providerTokenProblem
                == "key ABCDE12345 is scoped to com.example.app (--key-topics), not to com.example.other")
        #expect(other.assess(with: Self.validator()).isAccepted, "a team-scoped key pushes to any topic")
    }

    @Test("several trusted keys: a kid naming none of them is InvalidProviderToken, naming them all")
    func unknownKeyID() {
        let stranger = RequestFixture(token: RequestFixture.token(key: Self.otherKey, keyID: "ZZZZZ00000"))
        let assessment = stranger.assess(with: Self.validator())
        #expect(assessment.rejection?.reason == .invalidProviderToken)
        #expect(
            assessment.providerTokenProblem
                == #"kid is "ZZZZZ00000", not one of the trusted key ids "ABCDE12345", "FGHIJ67890""#)
        let forged = RequestFixture(token: RequestFixture.token(key: Self.otherKey, keyID: RequestFixture.keyID))
        #expect(forged.assess(with: Self.validator()).rejection?.reason == .invalidProviderToken)
    }

    @Test("--expired tokens are answered 410 ExpiredToken with their time; registering clears them")
    func expiredTokens() {
        var states = ScriptedDeviceStates()
        states.expire("ABCD", at: 1_700_000_000_000)
        #expect(states.answer(for: "abcd")?.rejection == APNsRejection(.expiredToken))
        #expect(states.answer(for: "abcd")?.timestamp == 1_700_000_000_000)
        let hadState = states.register("abcd")
        #expect(hadState)
        #expect(states.answer(for: "abcd") == nil && states.isEmpty)
    }

    @Test("a scope flag's value names the configured key or KID=VALUE")
    func splitting() {
        let configured = KeyScope.split("sandbox")
        #expect(configured.keyID == nil && configured.value == "sandbox")
        let named = KeyScope.split("ABCDE12345=a.b,c.d")
        #expect(named.keyID == "ABCDE12345" && named.value == "a.b,c.d")
    }
}
