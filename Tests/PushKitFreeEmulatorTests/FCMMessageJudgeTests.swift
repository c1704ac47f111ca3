import Foundation
import PushKitFreeCore
import PushKitFreeEmulator
import Testing

@Suite("apns-emulator FCM messages:send: the message rules")
struct FCMMessageJudgeTests {
    static let token = FCMTestSupport.deviceToken

    private func judge(_ body: String) -> Result<FCMMessageJudge.Accepted, FCMErrorAnswer> {
        FCMMessageJudge.judge(Array(body.utf8))
    }

    @Test(
        "messages Google documents are accepted",
        arguments: [
            #"{"message": {"token": "\#(token)", "notification": {"title": "Hi", "body": "There", "image": "https://example.com/a.png"}}}"#,
            #"{"message": {"topic": "news", "data": {"kind": "greeting", "count": "3"}}}"#,
            #"{"message": {"topic": "/topics/news.local~x%20"}}"#,
            #"{"message": {"condition": "'a' in topics && 'b' in topics"}}"#,
            #"{"message": {"token": "\#(token)", "apns": {"headers": {"apns-priority": "10", "apns-push-type": "alert"}, "payload": {"aps": {"alert": "Hi"}}}}}"#,
            #"{"message": {"token": "\#(token)", "android": {"priority": "HIGH", "ttl": "3.5s", "collapse_key": "c"}}}"#,
            #"{"message": {"token": "\#(token)", "android": {"priority": "NORMAL", "ttl": "2419200s"}}}"#,
            #"{"message": {"token": "\#(token)", "webpush": {"headers": {"TTL": "60"}}, "fcm_options": {"analytics_label": "x"}}}"#,
            #"{"message": {"token": "\#(token)"}, "validate_only": true}"#,
        ])
    func accepts(body: String) throws {
        _ = try judge(body).get()
    }

    @Test("the accepted request names its target and keeps validate_only")
    func readsTarget() throws {
        let accepted = try judge(#"{"message": {"token": "\#(Self.token)"}, "validate_only": true}"#).get()
        #expect(accepted.target == .token(Self.token))
        #expect(accepted.validateOnly)
        #expect(try judge(#"{"message": {"topic": "/topics/news"}}"#).get().target == .topic("news"))
    }

    @Test(
        "bad messages are 400 INVALID_ARGUMENT with a BadRequest detail naming the field",
        arguments: [
            (#"{"message": {"token": "\#(token)", "data": {"count": 3}}}"#, #"message.data["count"]"#),
            (#"{"message": {"token": "\#(token)", "data": {"from": "me"}}}"#, "message.data"),
            (#"{"message": {"token": "\#(token)", "data": {"google.x": "1"}}}"#, "message.data"),
            (#"{"message": {"token": "\#(token)", "data": {"gcm.n.e": "1"}}}"#, "message.data"),
            (#"{"message": {"token": "\#(token)", "data": {"message_type": "x"}}}"#, "message.data"),
            (#"{"message": {"token": "\#(token)", "data": {"notification": "x"}}}"#, "message.data"),
            (#"{"message": {"token": "\#(token)", "notifcation": {"title": "typo"}}}"#, "message.notifcation"),
            (
                #"{"message": {"token": "\#(token)", "notification": {"title": "Hi", "sound": "x"}}}"#,
                "message.notification.sound"
            ),
            (#"{"message": {"token": "\#(token)", "notification": {"title": 5}}}"#, "message.notification.title"),
            (
                #"{"message": {"token": "\#(token)", "apns": {"headers": {"apns-priority": 10}}}}"#,
                #"message.apns.headers["apns-priority"]"#
            ),
            (#"{"message": {"token": "\#(token)", "android": {"priority": "URGENT"}}}"#, "message.android.priority"),
            (#"{"message": {"token": "\#(token)", "android": {"priority": "high"}}}"#, "message.android.priority"),
            (#"{"message": {"token": "\#(token)", "android": {"ttl": "3.5"}}}"#, "message.android.ttl"),
            (#"{"message": {"token": "\#(token)", "android": {"ttl": 60}}}"#, "message.android.ttl"),
            (#"{"message": {"token": "\#(token)", "android": {"ttl": "2419201s"}}}"#, "message.android.ttl"),
            (#"{"message": {"data": {"a": "b"}}}"#, "message"),
            (#"{"message": {"token": "\#(token)", "topic": "news"}}"#, "message.topic"),
            (#"{"message": {"topic": "bad topic!"}}"#, "message.topic"),
            (#"{"message": {"token": "\#(token)"}, "validate_only": "yes"}"#, "validate_only"),
            (#"{"message": {"token": "\#(token)"}, "dry_run": true}"#, "dry_run"),
            (#"{"msg": {}}"#, "msg"),
            (#"{}"#, "message"),
        ])
    func refusesBadMessage(body: String, field: String) {
        guard case .failure(let answer) = judge(body) else {
            Issue.record("accepted: \(body)")
            return
        }
        #expect(answer.code == 400)
        #expect(answer.status == "INVALID_ARGUMENT")
        #expect(answer.detail == .badRequest(field: field))
        #expect(answer.errorCode == nil)
    }

    @Test("a payload over 4,096 bytes is refused; one at the limit passes")
    func limitsSize() throws {
        let overhead = #"{"data":{"k":""}}"#.utf8.count
        let fits = String(repeating: "x", count: FCMMessageJudge.payloadLimit - overhead)
        let accepted = try judge(#"{"message": {"token": "\#(Self.token)", "data": {"k": "\#(fits)"}}}"#).get()
        #expect(accepted.payloadBytes == FCMMessageJudge.payloadLimit)
        guard
            case .failure(let answer) = judge(#"{"message": {"token": "\#(Self.token)", "data": {"k": "\#(fits)x"}}}"#)
        else {
            Issue.record("a payload over the limit was accepted")
            return
        }
        #expect(answer.code == 400)
        #expect(answer.detail == .badRequest(field: "message"))
    }

    @Test(
        "a registration token of the wrong shape is INVALID_ARGUMENT with an FcmError detail (the token is dead)",
        arguments: [
            "abc", String(repeating: "a", count: 150), "dK3x9Y:" + String(repeating: "a", count: 60),
            "dK3x9Yv0QxS2bP1cLmN4oA:APA91b" + String(repeating: "a+/", count: 40),
            "dK3x9Yv0QxS2bP1cLmN4oA:" + String(repeating: "a", count: 4100),
        ])
    func refusesBadToken(token: String) {
        guard case .failure(let answer) = judge(#"{"message": {"token": "\#(token)"}}"#) else {
            Issue.record("accepted token \(token)")
            return
        }
        #expect(answer.code == 400)
        #expect(answer.errorCode == "INVALID_ARGUMENT")
        #expect(answer.message == "The registration token is not a valid FCM registration token")
    }

    @Test("a body that is not JSON is a bad message")
    func refusesNonJSON() {
        guard case .failure(let answer) = judge("message=hello") else {
            Issue.record("accepted")
            return
        }
        #expect(answer.code == 400)
        #expect(answer.detail == .badRequest(field: nil))
    }

    @Test("error bodies have Google's shape")
    func errorBodyShape() throws {
        let body = try JSONValue.parse(Data(FCMErrorAnswer.scripted("UNREGISTERED")!.body()))
        let error = try #require(body.objectValue?["error"]?.objectValue)
        #expect(error["code"]?.integerValue == 404)
        #expect(error["status"]?.stringValue == "NOT_FOUND")
        let detail = try #require(error["details"]?.arrayValue?.first?.objectValue)
        #expect(detail["@type"]?.stringValue == "type.googleapis.com/google.firebase.fcm.v1.FcmError")
        #expect(detail["errorCode"]?.stringValue == "UNREGISTERED")
        #expect(FCMErrorAnswer.scripted("QUOTA_EXCEEDED")?.code == 429)
        #expect(FCMErrorAnswer.scripted("QUOTA_EXCEEDED")?.retryAfter != nil)
        #expect(FCMErrorAnswer.scripted("UNAVAILABLE")?.code == 503)
        #expect(FCMErrorAnswer.scripted("INTERNAL")?.code == 500)
        #expect(FCMErrorAnswer.scripted("SENDER_ID_MISMATCH")?.code == 403)
        #expect(FCMErrorAnswer.scripted("THIRD_PARTY_AUTH_ERROR")?.code == 401)
        #expect(FCMErrorAnswer.scripted("Unregistered") == nil)
    }
}
