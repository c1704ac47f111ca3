import Foundation
import PushKitFreeCore
import PushKitFreeEmulator
import Testing

@Suite("apns-emulator FCM routes: token endpoint and messages:send")
struct FCMEndpointTests {
    let endpoint = FCMEndpoint(account: FCMTestSupport.account, tokenURI: FCMTestSupport.tokenURI)
    let sendPath = "/v1/projects/pushkit-emulator/messages:send"

    private func post(
        _ path: String, _ body: String, headers: [(name: String, value: String)] = []
    )
        -> FCMEndpoint
        .Response
    {
        endpoint.respond(
            method: "POST", path: path, headers: headers, body: Array(body.utf8), connection: 1, stream: 1)
    }

    private func json(_ response: FCMEndpoint.Response) throws -> [String: JSONValue] {
        try #require(try JSONValue.parse(Data(response.body)).objectValue)
    }

    private func accessToken() throws -> String {
        let assertion = FCMTestSupport.assertion()
        let response = post(
            "/token", "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)")
        #expect(response.status == 200)
        let body = try json(response)
        #expect(body["token_type"]?.stringValue == "Bearer")
        #expect(body["expires_in"]?.integerValue == 3599)
        return try #require(body["access_token"]?.stringValue)
    }

    private func bearer(_ token: String) -> [(name: String, value: String)] {
        [(name: "authorization", value: "Bearer \(token)")]
    }

    @Test("a good assertion gets an access token that sends; the record never holds either")
    func tokenThenSend() throws {
        let token = try accessToken()
        let response = post(
            sendPath, #"{"message": {"token": "\#(FCMTestSupport.deviceToken)", "data": {"a": "b"}}}"#,
            headers: bearer(token))
        #expect(response.status == 200)
        let name = try #require(try json(response)["name"]?.stringValue)
        #expect(name.hasPrefix("projects/pushkit-emulator/messages/"))
        let record = String(decoding: response.recordLine, as: UTF8.self)
        #expect(record.contains(#""provider":"fcm""#))
        #expect(!record.contains(token))
        #expect(endpoint.counters == .init(tokenRequests: 1, tokensIssued: 1, sends: 1, delivered: 1))
    }

    @Test("an access token stops working 3,599 seconds after it was issued: 401 UNAUTHENTICATED")
    func tokenExpires() throws {
        let token = try accessToken()
        let message = #"{"message": {"topic": "news"}}"#
        func send(after seconds: TimeInterval) -> Int {
            endpoint.respond(
                method: "POST", path: sendPath, headers: bearer(token), body: Array(message.utf8), connection: 1,
                stream: 1, now: Date().addingTimeInterval(seconds)
            ).status
        }
        #expect(send(after: 3000) == 200)
        #expect(send(after: 3600) == 401)
    }

    @Test("a bad assertion is 400 invalid_grant and issues nothing; the assertion is not recorded")
    func refusesBadAssertion() throws {
        let assertion = FCMTestSupport.assertion(signedWith: FCMTestSupport.otherKey)
        let response = post("/token", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=\(assertion)")
        #expect(response.status == 400)
        #expect(try json(response)["error"]?.stringValue == "invalid_grant")
        #expect(!String(decoding: response.recordLine, as: UTF8.self).contains(assertion))
        #expect(endpoint.counters.tokenRequests == 1)
        #expect(endpoint.counters.tokensIssued == 0)
        let wrongGrant = post("/token", "grant_type=client_credentials&assertion=\(assertion)")
        #expect(try json(wrongGrant)["error"]?.stringValue == "unsupported_grant_type")
    }

    @Test("no token, an unknown token or another scheme is 401 UNAUTHENTICATED")
    func refusesUnauthenticated() throws {
        let message = #"{"message": {"topic": "news"}}"#
        for headers in [[], bearer("ya29.made-up"), [(name: "authorization", value: "Basic dTpw")]] {
            let response = post(sendPath, message, headers: headers)
            #expect(response.status == 401)
            let error = try #require(try json(response)["error"]?.objectValue)
            #expect(error["status"]?.stringValue == "UNAUTHENTICATED")
        }
    }

    @Test("another project is 403 PERMISSION_DENIED")
    func refusesOtherProject() throws {
        let token = try accessToken()
        let response = post(
            "/v1/projects/someone-else/messages:send", #"{"message": {"topic": "news"}}"#, headers: bearer(token))
        #expect(response.status == 403)
        #expect(try json(response)["error"]?.objectValue?["status"]?.stringValue == "PERMISSION_DENIED")
    }

    @Test("validate_only is judged the same, answered with a fake name, and not delivered")
    func validateOnly() throws {
        let token = try accessToken()
        let good = post(
            sendPath, #"{"message": {"token": "\#(FCMTestSupport.deviceToken)"}, "validate_only": true}"#,
            headers: bearer(token))
        #expect(good.status == 200)
        #expect(try json(good)["name"]?.stringValue == "projects/pushkit-emulator/messages/fake_message_id")
        let bad = post(sendPath, #"{"message": {"token": "short"}, "validate_only": true}"#, headers: bearer(token))
        #expect(bad.status == 400)
        #expect(endpoint.counters.delivered == 0)
    }

    @Test("an unknown route or method is 404 NOT_FOUND")
    func unknownRoute() {
        #expect(post("/v1/projects/pushkit-emulator/messages:list", "{}").status == 404)
        let get = endpoint.respond(method: "GET", path: sendPath, headers: [], body: [], connection: 1, stream: 1)
        #expect(get.status == 404)
        #expect(FCMEndpoint.serves(path: "/token"))
        #expect(FCMEndpoint.serves(path: sendPath))
        #expect(!FCMEndpoint.serves(path: "/3/device/0a0b"))
    }

    @Test("a body over the connection's limit is a recorded 400 INVALID_ARGUMENT")
    func tooLarge() throws {
        let response = endpoint.respondTooLarge(
            method: "POST", path: sendPath, bodySize: 40_000, connection: 1, stream: 3)
        #expect(response.status == 400)
        #expect(try json(response)["error"]?.objectValue?["status"]?.stringValue == "INVALID_ARGUMENT")
        #expect(String(decoding: response.recordLine, as: UTF8.self).contains(#""stream":3"#))
    }

    @Test("the service account file has Google's members and a PKCS#8 key")
    func serviceAccountFile() throws {
        let file = try #require(
            try JSONValue.parse(FCMTestSupport.account.json(tokenURI: FCMTestSupport.tokenURI)).objectValue)
        #expect(file["type"]?.stringValue == "service_account")
        #expect(file["project_id"]?.stringValue == "pushkit-emulator")
        #expect(file["client_email"]?.stringValue == "emulator@pushkit-emulator.iam.gserviceaccount.com")
        #expect(file["token_uri"]?.stringValue == FCMTestSupport.tokenURI)
        #expect(file["private_key"]?.stringValue?.hasPrefix("-----BEGIN PRIVATE KEY-----\n") == true)
        #expect(file["private_key_id"]?.stringValue?.count == 40)
        #expect(file["client_id"]?.stringValue?.count == 21)
        #expect(EmulatorServiceAccount.isProjectID("pushkit-emulator"))
        #expect(!EmulatorServiceAccount.isProjectID("Pushkit"))
        #expect(!EmulatorServiceAccount.isProjectID("ends-with-"))
    }

    @Test("an FCM token takes ok or an FCM error code as a --script-file step")
    func scriptSteps() throws {
        let token = FCMTestSupport.deviceToken
        let script = try DeviceScript.parse("\(token) UNREGISTERED,ok\n", origin: "f")
        #expect(script.step(for: token, index: 0) == .fcm("UNREGISTERED"))
        #expect(script.step(for: token, index: 1) == .ok)
        #expect(throws: ScriptedDeviceStatesError.self) {
            try DeviceScript.parse("\(token) 410:Unregistered", origin: "f")
        }
        #expect(throws: ScriptedDeviceStatesError.self) { try DeviceScript.parse("0a0b UNREGISTERED", origin: "f") }
    }
}
