import Crypto
import CryptoExtras
import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("FCM assertion and access token")
struct FCMAssertionTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func parts(_ compact: String) throws -> (header: JSONValue, claims: JSONValue, input: String, signature: Data) {
        let pieces = compact.split(separator: ".", omittingEmptySubsequences: false)
        try #require(pieces.count == 3)
        let header = try JSONValue.parse(try #require(Base64URL.decode(pieces[0])))
        let claims = try JSONValue.parse(try #require(Base64URL.decode(pieces[1])))
        return (header, claims, String(pieces[0]) + "." + String(pieces[1]), try #require(Base64URL.decode(pieces[2])))
    }

    @Test("an RS256 JWT with the account's kid, iss, aud and FCM's scope, for one hour")
    func claims() throws {
        let account = try FCMFixtures.account()
        let assertion = try FCMAssertion(account: account, now: now)
        let jwt = try parts(assertion.compact)
        #expect(jwt.header == ["alg": "RS256", "typ": "JWT", "kid": "0123456789abcdef0123456789abcdef01234567"])
        #expect(
            jwt.claims == [
                "iss": "firebase-adminsdk-abc12@demo-project-1a2b3.iam.gserviceaccount.com",
                "scope": "https://www.googleapis.com/auth/firebase.messaging",
                "aud": "https://oauth2.googleapis.com/token",
                "iat": 1_800_000_000, "exp": 1_800_003_600,
            ])
        #expect(assertion.expiresAt - assertion.issuedAt == 3600)
    }

    @Test("the signature verifies with the account's public key as PKCS#1 v1.5 over SHA-256, and only with it")
    func signatureVerifies() throws {
        let assertion = try FCMAssertion(account: try FCMFixtures.account(), now: now)
        let jwt = try parts(assertion.compact)
        let signature = _RSA.Signing.RSASignature(rawRepresentation: jwt.signature)
        let publicKey = FCMFixtures.key.publicKey
        #expect(
            publicKey.isValidSignature(
                signature, for: SHA256.hash(data: Data(jwt.input.utf8)), padding: .insecurePKCS1v1_5))
        #expect(!publicKey.isValidSignature(signature, for: SHA256.hash(data: Data(jwt.input.utf8)), padding: .PSS))
        #expect(
            !publicKey.isValidSignature(
                signature, for: SHA256.hash(data: Data((jwt.input + "x").utf8)), padding: .insecurePKCS1v1_5))
    }

    @Test("a lifetime over an hour is cut to an hour")
    func lifetimeCapped() throws {
        let assertion = try FCMAssertion(account: try FCMFixtures.account(), now: now, lifetime: 7200)
        #expect(assertion.expiresAt == 1_800_003_600)
        let short = try FCMAssertion(account: try FCMFixtures.account(), now: now, lifetime: 600)
        #expect(short.expiresAt == 1_800_000_600)
    }

    @Test("the token request is a form POST to token_uri with the JWT-bearer grant")
    func tokenRequest() throws {
        let account = try FCMFixtures.account()
        let assertion = try FCMAssertion(account: account, now: now)
        let request = FCMAccessTokenRequest(account: account, assertion: assertion).http2Request(tag: 7)
        #expect(request.url == "https://oauth2.googleapis.com/token")
        #expect(request.method == .post)
        #expect(request.tag == 7)
        #expect(request.headers.first { $0.name == "content-type" }?.value == "application/x-www-form-urlencoded")
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion.compact)")
    }

    func token(_ status: Int, _ body: String) throws(FCMAuthenticationError) -> FCMAccessToken {
        try FCMAccessToken(
            answer: HTTP2Answer(status: status, headers: [:], body: Data(body.utf8)), receivedAt: now,
            endpoint: "https://oauth2.googleapis.com/token", account: "service account x@y of project p")
    }

    @Test("a token answer gives the token and its expiry")
    func readsToken() throws {
        let token = try token(200, #"{"access_token":"ya29.c.abc","expires_in":3599,"token_type":"Bearer"}"#)
        #expect(token == FCMAccessToken(token: "ya29.c.abc", expiresAt: now.addingTimeInterval(3599)))
        #expect(token.isUsable(at: now.addingTimeInterval(3500)))
        #expect(!token.isUsable(at: now.addingTimeInterval(3550)))
    }

    @Test("an OAuth error answer is a configuration error that says what Google said")
    func oauthError() {
        #expect {
            try token(400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#)
        } throws: { error in
            let error = error as? FCMAuthenticationError
            return error?.exitStatus == .configuration
                && error?.message.hasPrefix(
                    "the token endpoint https://oauth2.googleapis.com/token refused service account x@y of project p "
                        + "with 400: invalid_grant (Invalid JWT Signature.); is this machine's clock right") == true
        }
        #expect {
            try token(503, "<html>busy</html>")
        } throws: { ($0 as? FCMAuthenticationError)?.exitStatus == .temporaryFailure }
    }

    @Test("a 200 without a usable token is refused")
    func malformedToken() {
        #expect(throws: FCMAuthenticationError.self) { try token(200, #"{"expires_in":3599}"#) }
        #expect(throws: FCMAuthenticationError.self) { try token(200, #"{"access_token":"a","expires_in":0}"#) }
        #expect(throws: FCMAuthenticationError.self) {
            try token(200, #"{"access_token":"a","expires_in":10,"token_type":"MAC"}"#)
        }
        #expect(throws: FCMAuthenticationError.self) { try token(200, #"{"access_token":"a\nb","expires_in":10}"#) }
    }
}
