import Crypto
import Foundation
import Testing
import PushKitFreeCore
@testable import PushKitFreeEmulator

/// A request as a test writes it: valid by default, each test changing one thing.
struct RequestFixture {
    static let key = ProviderKey(privateKey: P256.Signing.PrivateKey())
    static let keyID = "ABCDE12345"
    static let teamID = "TEAM678901"
    static let bundleID = "com.example.app"
    static let now = Date(timeIntervalSince1970: 1_750_000_000)
    static let deviceToken = String(repeating: "ab", count: 32)

    var method = "POST"
    var path = "/3/device/" + deviceToken
    var headers: [(name: String, value: String)]
    var body = Array(#"{"aps":{"alert":"Hello"}}"#.utf8)

    init(token: String = RequestFixture.token()) {
        headers = [
            (":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + Self.deviceToken),
            (":authority", "localhost"),
            ("authorization", "bearer " + token),
            ("apns-topic", Self.bundleID),
            ("apns-push-type", "alert"),
        ]
    }

    /// A token signed by `key` (the trusted one unless given), issued `age` seconds before `now`.
    static func token(
        key: ProviderKey = RequestFixture.key, keyID: String = keyID, teamID: String = teamID, age: Int = 60
    ) -> String {
        (try? ProviderToken.sign(key: key, keyID: keyID, teamID: teamID, issuedAt: Int(now.timeIntervalSince1970) - age)
            .compact) ?? ""
    }

    mutating func set(_ name: String, _ value: String?) {
        headers.removeAll { $0.name == name }
        if let value { headers.append((name, value)) }
    }

    static func validator(
        bundleID: String? = RequestFixture.bundleID, tracker: ProviderTokenUpdateTracker? = ProviderTokenUpdateTracker()
    ) -> APNsRequestValidator {
        APNsRequestValidator(
            trust: .init(publicKey: key.privateKey.publicKey, keyID: keyID, teamID: teamID, bundleID: bundleID),
            tokenUpdates: tracker)
    }

    func assess(
        with validator: APNsRequestValidator = RequestFixture.validator(), at time: Date = RequestFixture.now
    ) -> APNsRequestAssessment {
        validator.assess(method: method, path: path, headers: headers, body: body, now: time)
    }

    var reason: APNsReason? { assess().rejection?.reason }
    var status: Int? { assess().rejection?.status }
}

@Suite("APNs request validator")
struct APNsRequestValidatorTests {
    @Test("a well-formed request with a fresh token is accepted and authenticated")
    func acceptsValidRequest() {
        let assessment = RequestFixture().assess()
        #expect(assessment.rejection == nil)
        #expect(assessment.isAuthenticated)
        #expect(assessment.deviceToken == RequestFixture.deviceToken)
        #expect(assessment.topic == RequestFixture.bundleID)
        #expect(assessment.pushType == .alert)
        #expect(assessment.payload == Array(#"{"aps":{"alert":"Hello"}}"#.utf8))
        #expect(assessment.providerToken?.claims?["iss"] == .string(RequestFixture.teamID))
    }

    @Test("method other than POST is 405 MethodNotAllowed")
    func methodNotAllowed() {
        var request = RequestFixture()
        request.method = "GET"
        #expect(request.reason == .methodNotAllowed)
        #expect(request.status == 405)
    }

    @Test(
        "paths",
        arguments: [
            ("/3/devices/abcd", APNsReason.badPath, 404),
            ("/2/device/abcd", .badPath, 404),
            ("/", .badPath, 404),
            ("/3/device/", .missingDeviceToken, 400),
            ("/3/device", .missingDeviceToken, 400),
            ("/3/device/abc", .badDeviceToken, 400),
            ("/3/device/zz", .badDeviceToken, 400),
            ("/3/device/abcd?x=1", .badDeviceToken, 400),
        ])
    func paths(path: String, reason: APNsReason, status: Int) {
        var request = RequestFixture()
        request.path = path
        #expect(request.reason == reason)
        #expect(request.status == status)
    }

    @Test("device tokens of any even hex length and either case are accepted")
    func deviceTokenLengths() {
        for token in ["ab", "ABCDEF0123", String(repeating: "0f", count: 100)] {
            var request = RequestFixture()
            request.path = "/3/device/" + token
            #expect(request.reason == nil, "\(token)")
        }
    }

    @Test("a repeated header is 400 DuplicateHeaders")
    func duplicateHeaders() {
        var request = RequestFixture()
        request.headers.append(("apns-topic", RequestFixture.bundleID))
        #expect(request.reason == .duplicateHeaders)
    }

    @Test(
        "provider token problems",
        arguments: [
            ("missing", APNsReason.missingProviderToken),
            ("not bearer", .invalidProviderToken),
            ("garbage", .invalidProviderToken),
            ("other key", .invalidProviderToken),
            ("other kid", .invalidProviderToken),
            ("other team", .invalidProviderToken),
            ("der signature of another key", .invalidProviderToken),
            ("expired", .expiredProviderToken),
            ("far future", .invalidProviderToken),
        ])
    func tokenProblems(kind: String, reason: APNsReason) throws {
        var request = RequestFixture()
        let valid = RequestFixture.token()
        switch kind {
        case "missing": request.set("authorization", nil)
        case "not bearer": request.set("authorization", valid)
        case "garbage": request.set("authorization", "bearer not.a.jwt")
        case "other key":
            request.set(
                "authorization",
                "bearer " + RequestFixture.token(key: ProviderKey(privateKey: P256.Signing.PrivateKey())))
        case "other kid": request.set("authorization", "bearer " + RequestFixture.token(keyID: "ZZZZZ99999"))
        case "other team": request.set("authorization", "bearer " + RequestFixture.token(teamID: "ZZZZZ99999"))
        case "der signature of another key":
            let other = RequestFixture.token(key: ProviderKey(privateKey: P256.Signing.PrivateKey()))
            request.set("authorization", "bearer " + (try Self.withDERSignature(other)))
        case "expired": request.set("authorization", "bearer " + RequestFixture.token(age: 3601))
        case "far future": request.set("authorization", "bearer " + RequestFixture.token(age: -3600))
        default: Issue.record("unknown case \(kind)")
        }
        let assessment = request.assess()
        #expect(assessment.rejection?.reason == reason)
        #expect(assessment.rejection?.status == 403)
        #expect(!assessment.isAuthenticated)
        if kind != "missing" { #expect(assessment.providerTokenProblem != nil) }
    }

    /// A token signed by the trusted key with `claims` as written (for shapes `ProviderToken.sign` never makes).
    static func token(claims: String) throws -> String {
        let signingInput =
            Base64URL.encode(Data(#"{"alg":"ES256","kid":"\#(RequestFixture.keyID)"}"#.utf8)) + "."
            + Base64URL.encode(Data(claims.utf8))
        let signature = try RequestFixture.key.privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    @Test("an iat written as a numeric string is accepted with a note, as APNs accepts it; --strict-iat refuses it")
    func numericStringIssuedAt() throws {
        let issued = Int(RequestFixture.now.timeIntervalSince1970) - 60
        let stringIAT = try Self.token(claims: #"{"iss":"\#(RequestFixture.teamID)","iat":"\#(issued)"}"#)
        let lenient = RequestFixture(token: stringIAT).assess()
        #expect(lenient.rejection == nil && lenient.isAuthenticated)
        #expect(lenient.providerToken?.issuedAt == issued)
        #expect(lenient.providerToken?.note?.contains("APNs accepts it") == true)

        let strictValidator = APNsRequestValidator(
            trust: .init(
                publicKey: RequestFixture.key.privateKey.publicKey, keyID: RequestFixture.keyID,
                teamID: RequestFixture.teamID, bundleID: RequestFixture.bundleID, strictIssuedAt: true),
            tokenUpdates: ProviderTokenUpdateTracker())
        let strict = RequestFixture(token: stringIAT).assess(with: strictValidator)
        #expect(strict.rejection?.reason == .invalidProviderToken)
        #expect(strict.providerTokenProblem?.contains("--strict-iat") == true)

        // Its age is still judged, and other strings are still refused.
        let old = try Self.token(claims: #"{"iss":"\#(RequestFixture.teamID)","iat":"\#(issued - 4000)"}"#)
        #expect(RequestFixture(token: old).assess().rejection?.reason == .expiredProviderToken)
        for bad in [#""soon""#, #""-5""#, #""1.5e9""#, #""""#, "1.5", "null"] {
            let token = try Self.token(claims: #"{"iss":"\#(RequestFixture.teamID)","iat":\#(bad)}"#)
            #expect(RequestFixture(token: token).assess().rejection?.reason == .invalidProviderToken, "iat \(bad)")
        }
        // A number carries no note.
        #expect(RequestFixture().assess().providerToken?.note == nil)
    }

    /// `token` with its 64-byte r‖s signature written in DER, as `openssl dgst -sha256 -sign` makes it.
    static func withDERSignature(_ token: String) throws -> String {
        let parts = token.split(separator: ".")
        let raw = try #require(Base64URL.decode(parts[2]))
        let der = try P256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation
        return "\(parts[0]).\(parts[1]).\(Base64URL.encode(der))"
    }

    @Test("a DER-encoded signature is accepted with a note, as APNs accepts it; --strict-signature refuses it")
    func derSignature() throws {
        let der = try Self.withDERSignature(RequestFixture.token())
        let lenient = RequestFixture(token: der).assess()
        #expect(lenient.rejection == nil && lenient.isAuthenticated)
        #expect(lenient.providerToken?.note?.contains("DER-encoded") == true)

        var trust = APNsRequestValidator.Trust(
            publicKey: RequestFixture.key.privateKey.publicKey, keyID: RequestFixture.keyID,
            teamID: RequestFixture.teamID, bundleID: RequestFixture.bundleID)
        trust.strictSignature = true
        let strictValidator = APNsRequestValidator(trust: trust, tokenUpdates: ProviderTokenUpdateTracker())
        let strict = RequestFixture(token: der).assess(with: strictValidator)
        #expect(strict.rejection?.reason == .invalidProviderToken)
        #expect(strict.providerTokenProblem?.contains("--strict-signature") == true)
        #expect(RequestFixture().assess(with: strictValidator).rejection == nil, "r‖s passes the strict reading")
    }

    @Test("a token exactly one hour old is still accepted; the bearer keyword is case-insensitive")
    func tokenAgeBoundary() {
        var request = RequestFixture(token: RequestFixture.token(age: 3600))
        #expect(request.reason == nil)
        request.set("authorization", "Bearer " + RequestFixture.token(age: 3600))
        #expect(request.reason == nil)
    }

    @Test(
        "per connection (Apple's rule): a new token on the same connection within 20 minutes is 429; on another connection it is accepted with a note"
    )
    func tokenUpdateRate() {
        let tracker = ProviderTokenUpdateTracker()
        let validator = RequestFixture.validator(tracker: tracker)
        let first = RequestFixture(token: RequestFixture.token(age: 100))
        let second = RequestFixture(token: RequestFixture.token(age: 50))
        #expect(first.assess(with: validator).rejection == nil)
        #expect(first.assess(with: validator).providerTokenNote == nil)
        let refused = second.assess(with: validator)
        #expect(refused.rejection == APNsRejection(.tooManyProviderTokenUpdates))
        #expect(refused.rejection?.status == 429)
        #expect(refused.providerTokenProblem?.contains("on this connection") == true)
        #expect(first.assess(with: validator).rejection == nil, "the first token stays good")
        // Another connection (validator) may start with a fresh token; the record notes it.
        let other = second.assess(with: RequestFixture.validator(tracker: tracker))
        #expect(other.rejection == nil)
        #expect(other.providerTokenNote?.contains("on another connection") == true)
        // 20 minutes later the first connection may change its token.
        let later = RequestFixture.now.addingTimeInterval(20 * 60)
        let third = RequestFixture(token: RequestFixture.token(age: -1100))
        #expect(third.assess(with: validator, at: later).rejection == nil)
    }

    @Test("the global rule (--global-token-updates): a new token within 20 minutes is 429 on any connection")
    func globalTokenUpdateRate() {
        let tracker = ProviderTokenUpdateTracker(rule: .global)
        let first = RequestFixture(token: RequestFixture.token(age: 100))
        let second = RequestFixture(token: RequestFixture.token(age: 50))
        #expect(first.assess(with: RequestFixture.validator(tracker: tracker)).rejection == nil)
        let refused = second.assess(with: RequestFixture.validator(tracker: tracker))
        #expect(refused.rejection?.reason == .tooManyProviderTokenUpdates)
        #expect(refused.providerTokenProblem?.contains("--global-token-updates") == true)
        #expect(
            first.assess(with: RequestFixture.validator(tracker: tracker)).rejection == nil,
            "a known token is fine anywhere")
        let later = RequestFixture.now.addingTimeInterval(20 * 60)
        #expect(
            RequestFixture(token: RequestFixture.token(age: -1100)).assess(
                with: RequestFixture.validator(tracker: tracker), at: later
            ).rejection == nil)
    }

    @Test("without a tracker (lenient) token updates are not limited")
    func lenientTokenUpdates() {
        let validator = RequestFixture.validator(tracker: nil)
        #expect(RequestFixture(token: RequestFixture.token(age: 100)).assess(with: validator).rejection == nil)
        #expect(RequestFixture(token: RequestFixture.token(age: 50)).assess(with: validator).rejection == nil)
    }

    @Test("apns-id must be a lowercase canonical UUID")
    func messageID() {
        var request = RequestFixture()
        request.set("apns-id", "123e4567-e89b-12d3-a456-426614174000")
        #expect(request.reason == nil)
        for bad in ["123E4567-E89B-12D3-A456-426614174000", "123e4567e89b12d3a456426614174000", "hello", ""] {
            request.set("apns-id", bad)
            #expect(request.reason == .badMessageID, "\(bad)")
        }
    }

    @Test("topic: missing is MissingTopic; it must be the bundle id plus the push type's suffix")
    func topics() {
        var request = RequestFixture()
        request.set("apns-topic", nil)
        #expect(request.reason == .missingTopic)
        request.set("apns-topic", "com.example.other")
        #expect(request.reason == .deviceTokenNotForTopic)
        request.set("apns-push-type", "voip")
        request.set("apns-topic", "com.example.app")
        #expect(request.reason == .deviceTokenNotForTopic)
        for type in APNsPushType.allCases {
            request.set("apns-push-type", type.rawValue)
            request.set("apns-topic", type.topic(forBundleID: RequestFixture.bundleID))
            request.set("apns-priority", type == .background ? "5" : nil)
            #expect(request.reason == nil, "\(type)")
        }
    }

    @Test("without a configured bundle id any topic with the right suffix passes")
    func topicWithoutBundleID() {
        let validator = RequestFixture.validator(bundleID: nil)
        var request = RequestFixture()
        request.set("apns-topic", "org.anything")
        #expect(request.assess(with: validator).rejection == nil)
        request.set("apns-push-type", "voip")
        #expect(request.assess(with: validator).rejection?.reason == .deviceTokenNotForTopic)
        request.set("apns-topic", "org.anything.voip")
        #expect(request.assess(with: validator).rejection == nil)
    }

    @Test("an unknown push type is InvalidPushType; an absent one means alert")
    func pushTypes() {
        var request = RequestFixture()
        request.set("apns-push-type", "banner")
        #expect(request.reason == .invalidPushType)
        request.set("apns-push-type", nil)
        #expect(request.reason == nil)
        #expect(request.assess().pushType == .alert)
    }

    @Test("priority must be 10, 5 or 1, and 5 for background")
    func priorities() {
        var request = RequestFixture()
        for good in ["10", "5", "1"] {
            request.set("apns-priority", good)
            #expect(request.reason == nil)
        }
        for bad in ["0", "7", "high", ""] {
            request.set("apns-priority", bad)
            #expect(request.reason == .badPriority, "\(bad)")
        }
        request.set("apns-push-type", "background")
        request.body = Array(#"{"aps":{"content-available":1}}"#.utf8)
        request.set("apns-priority", "10")
        #expect(request.reason == .badPriority)
        request.set("apns-priority", "5")
        #expect(request.reason == nil)
        request.set("apns-priority", nil)
        #expect(request.reason == nil)
    }

    @Test("collapse id at most 64 bytes of UTF-8")
    func collapseID() {
        var request = RequestFixture()
        request.set("apns-collapse-id", String(repeating: "x", count: 64))
        #expect(request.reason == nil)
        request.set("apns-collapse-id", String(repeating: "x", count: 65))
        #expect(request.reason == .badCollapseID)
        request.set("apns-collapse-id", String(repeating: "é", count: 33))
        #expect(request.reason == .badCollapseID)
    }

    @Test("expiration must be a non-negative integer")
    func expiration() {
        var request = RequestFixture()
        for good in ["0", "1750000000"] {
            request.set("apns-expiration", good)
            #expect(request.reason == nil)
        }
        for bad in ["soon", "1.5", "-1", ""] {
            request.set("apns-expiration", bad)
            #expect(request.reason == .badExpirationDate, "\(bad)")
        }
    }

    @Test("payload: empty, too large (4096, 5120 for voip), not an object with aps")
    func payloads() {
        var request = RequestFixture()
        request.body = []
        #expect(request.reason == .payloadEmpty)
        let filler = { (size: Int) -> [UInt8] in
            let prefix = #"{"aps":{},"x":""#, suffix = #""}"#
            return Array((prefix + String(repeating: "a", count: size - prefix.count - suffix.count) + suffix).utf8)
        }
        request.body = filler(4096)
        #expect(request.reason == nil)
        request.body = filler(4097)
        #expect(request.reason == .payloadTooLarge)
        #expect(request.status == 413)
        request.set("apns-push-type", "voip")
        request.set("apns-topic", "com.example.app.voip")
        #expect(request.reason == nil)
        request.body = filler(5121)
        #expect(request.reason == .payloadTooLarge)
        request = RequestFixture()
        for bad in [#"{"aps":"hi"}"#, #"[1,2]"#, #"{"aps":{}"#, "not json", #"{"aps":{}} x"#] {
            request.body = Array(bad.utf8)
            #expect(request.reason == .badPayload, "\(bad)")
            #expect(request.assess().payloadProblem != nil)
        }
        // No aps at all: APNs delivers it (a VoIP payload often has none); --require-aps refuses it.
        request.body = Array(#"{"caller":"Ada"}"#.utf8)
        #expect(request.reason == nil)
        #expect(request.assess().payloadNote?.contains("--require-aps") == true)
        var trust = RequestFixture.validator().trust
        trust.requireAps = true
        let strict = request.assess(with: APNsRequestValidator(trust: trust, tokenUpdates: nil))
        #expect(strict.rejection?.reason == .badPayload && strict.payloadProblem?.contains("--require-aps") == true)
    }

    @Test("checks run in the documented order")
    func order() {
        var request = RequestFixture()
        request.body = []
        request.set("apns-topic", nil)
        request.path = "/3/device/xyz"
        request.set("authorization", nil)
        #expect(request.reason == .missingProviderToken)
        request.set("authorization", "bearer " + RequestFixture.token())
        #expect(request.reason == .badDeviceToken)
        request.path = "/3/device/abcd"
        #expect(request.reason == .missingTopic)
        request.method = "PUT"
        #expect(request.reason == .methodNotAllowed)
    }

    @Test("a token's signature is verified once per validator, and the verdict is reused")
    func tokenCache() {
        let validator = RequestFixture.validator()
        let request = RequestFixture()
        let first = request.assess(with: validator)
        let second = request.assess(with: validator)
        #expect(first.isAuthenticated && second.isAuthenticated)
        #expect(first.providerToken?.recordJSON == second.providerToken?.recordJSON)
        #expect(first.providerToken?.recordJSON?.contains("bearer") == false)
    }
}
