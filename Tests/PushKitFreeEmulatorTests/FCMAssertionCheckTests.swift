import Foundation
import PushKitFreeCore
import PushKitFreeEmulator
import Testing

@Suite("apns-emulator FCM token endpoint: the JWT assertion")
struct FCMAssertionCheckTests {
    let check = FCMAssertionCheck(account: FCMTestSupport.account, tokenURI: FCMTestSupport.tokenURI)
    let now = Date()

    private func refusal(_ assertion: String) -> FCMAssertionCheck.Refusal? {
        if case .failure(let refusal) = check.check(assertion, now: now) { return refusal }
        return nil
    }

    @Test("an assertion signed with the account's key, as google-auth signs it, passes")
    func acceptsGoodAssertion() throws {
        let claims = try check.check(FCMTestSupport.assertion(FCMTestSupport.claims(now: now)), now: now).get()
        #expect(claims.issuer == FCMTestSupport.account.clientEmail)
        #expect(claims.scopes == [FCMAssertionCheck.messagingScope])
    }

    @Test("Google's own token endpoint is an accepted audience (google-auth always names it)")
    func acceptsGoogleAudience() {
        var claims = FCMTestSupport.claims(now: now)
        claims["aud"] = .string("https://oauth2.googleapis.com/token")
        #expect(refusal(FCMTestSupport.assertion(claims)) == nil)
    }

    @Test("a signature by another key is refused as Google words it")
    func refusesBadSignature() {
        let assertion = FCMTestSupport.assertion(FCMTestSupport.claims(now: now), signedWith: FCMTestSupport.otherKey)
        #expect(refusal(assertion) == .init(error: "invalid_grant", description: "Invalid JWT Signature."))
    }

    @Test("a payload changed after signing is refused")
    func refusesTamperedPayload() {
        let parts = FCMTestSupport.assertion(FCMTestSupport.claims(now: now)).split(separator: ".")
        var claims = FCMTestSupport.claims(now: now)
        claims["scope"] = .string(FCMAssertionCheck.messagingScope + " https://www.googleapis.com/auth/cloud-platform")
        let forged = "\(parts[0]).\(FCMTestSupport.base64URL(JSONValue.object(claims).serialized())).\(parts[2])"
        #expect(refusal(forged)?.description == "Invalid JWT Signature.")
    }

    @Test("a wrong audience is refused, naming the right one")
    func refusesWrongAudience() {
        var claims = FCMTestSupport.claims(now: now)
        claims["aud"] = .string("https://example.com/token")
        #expect(refusal(FCMTestSupport.assertion(claims))?.description.contains("Failed audience check") == true)
        #expect(refusal(FCMTestSupport.assertion(claims))?.description.contains(FCMTestSupport.tokenURI) == true)
    }

    @Test(
        "a lifetime over an hour, an expired assertion or one issued in the future is refused",
        arguments: [(0.0, 3601.0), (-7200.0, -1.0), (600.0, 1200.0), (0.0, 0.0)])
    func refusesBadLifetime(issuedOffset: Double, expiresOffset: Double) {
        var claims = FCMTestSupport.claims(now: now)
        let base = now.timeIntervalSince1970.rounded(.down)
        claims["iat"] = .number(base + issuedOffset)
        claims["exp"] = .number(base + expiresOffset)
        #expect(
            refusal(FCMTestSupport.assertion(claims))?.description.contains("short-lived token (60 minutes)") == true)
    }

    @Test("a small clock skew in iat is allowed")
    func allowsSkew() {
        var claims = FCMTestSupport.claims(now: now)
        claims["iat"] = .number(now.timeIntervalSince1970.rounded(.down) + 30)
        #expect(refusal(FCMTestSupport.assertion(claims)) == nil)
    }

    @Test("another issuer is an account Google does not know")
    func refusesOtherIssuer() {
        var claims = FCMTestSupport.claims(now: now)
        claims["iss"] = .string("someone@other-project.iam.gserviceaccount.com")
        #expect(
            refusal(FCMTestSupport.assertion(claims))
                == .init(error: "invalid_grant", description: "Invalid grant: account not found"))
    }

    @Test("without the Firebase messaging scope the answer is invalid_scope")
    func refusesMissingScope() {
        var claims = FCMTestSupport.claims(now: now)
        claims["scope"] = .string("https://www.googleapis.com/auth/devstorage.read_only")
        #expect(refusal(FCMTestSupport.assertion(claims))?.error == "invalid_scope")
        claims["scope"] = nil
        #expect(refusal(FCMTestSupport.assertion(claims))?.error == "invalid_scope")
    }

    @Test("another algorithm, another key id or a malformed JWT is refused")
    func refusesMalformed() {
        let claims = FCMTestSupport.claims(now: now)
        #expect(refusal(FCMTestSupport.assertion(claims, header: ["alg": .string("HS256")]))?.error == "invalid_grant")
        #expect(
            refusal(FCMTestSupport.assertion(claims, header: ["alg": .string("RS256"), "kid": .string("0123")]))?
                .description == "Invalid JWT Signature.")
        #expect(refusal("not.a.jwt")?.error == "invalid_grant")
        #expect(refusal("")?.error == "invalid_grant")
    }
}
