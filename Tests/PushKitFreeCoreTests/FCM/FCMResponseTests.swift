import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("FCM answers")
struct FCMResponseTests {
    func response(_ status: Int, _ body: String, headers: [String: String] = [:]) -> FCMResponse {
        FCMResponse(HTTP2Answer(status: status, headers: headers, body: Data(body.utf8)))
    }

    /// Google's error shape, with an FcmError detail when `errorCode` is given and `extra` details.
    func error(
        _ code: Int, status: String, errorCode: String? = nil, extra: [String] = [], message: String = "m"
    ) -> String {
        var details =
            errorCode.map {
                [#"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#($0)"}"#]
            } ?? []
        details += extra
        return
            #"{"error":{"code":\#(code),"message":"\#(message)","status":"\#(status)","details":[\#(details.joined(separator: ","))]}}"#
    }

    let badRequest =
        #"{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.data[0].value","description":"Invalid value"}]}"#

    @Test("200 is delivered with FCM's message name")
    func delivered() {
        let answer = response(200, #"{"name":"projects/demo/messages/0:1700000000000000%abc"}"#)
        #expect(answer == .accepted(name: "projects/demo/messages/0:1700000000000000%abc"))
        #expect(answer.outcome == .delivered(name: "projects/demo/messages/0:1700000000000000%abc"))
    }

    @Test("UNREGISTERED is a dead token")
    func unregistered() {
        let answer = response(
            404, error(404, status: "NOT_FOUND", errorCode: "UNREGISTERED", message: "Requested entity was not found."))
        guard case .rejected(let rejection) = answer else {
            Issue.record("read as accepted")
            return
        }
        #expect(rejection.reason == .unregistered)
        #expect(rejection.description == "404 UNREGISTERED: Requested entity was not found.")
        #expect(answer.outcome == .deadToken)
    }

    @Test("INVALID_ARGUMENT is a dead token only with an FcmError detail and no field named")
    func invalidArgument() {
        #expect(
            response(400, error(400, status: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT")).outcome == .deadToken)
        #expect(
            response(400, error(400, status: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT", extra: [badRequest]))
                .outcome == .badMessage)
        #expect(response(400, error(400, status: "INVALID_ARGUMENT", extra: [badRequest])).outcome == .badMessage)
        #expect(response(400, error(400, status: "INVALID_ARGUMENT")).outcome == .badMessage)
    }

    @Test("SENDER_ID_MISMATCH is the wrong project, not a dead token")
    func senderMismatch() {
        #expect(
            response(403, error(403, status: "PERMISSION_DENIED", errorCode: "SENDER_ID_MISMATCH")).outcome
                == .wrongProject)
    }

    @Test("THIRD_PARTY_AUTH_ERROR and a bare PERMISSION_DENIED stop the run")
    func systemic() {
        #expect(
            response(401, error(401, status: "UNAUTHENTICATED", errorCode: "THIRD_PARTY_AUTH_ERROR")).outcome
                == .systemic)
        #expect(response(403, error(403, status: "PERMISSION_DENIED")).outcome == .systemic)
    }

    @Test("UNAUTHENTICATED without an FcmError asks for a new access token")
    func unauthenticated() {
        #expect(response(401, error(401, status: "UNAUTHENTICATED")).outcome == .refreshAccessToken)
    }

    @Test("429, 503 and 500 are retried, Retry-After honoured when in seconds")
    func retried() {
        #expect(
            response(
                429, error(429, status: "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED"),
                headers: ["retry-after": "30"]
            )
            .outcome == .retry(retryAfter: 30))
        #expect(
            response(503, error(503, status: "UNAVAILABLE", errorCode: "UNAVAILABLE")).outcome
                == .retry(retryAfter: nil))
        #expect(response(500, error(500, status: "INTERNAL", errorCode: "INTERNAL")).outcome == .retry(retryAfter: nil))
        #expect(
            response(503, "<html>no</html>", headers: ["retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"]).outcome
                == .retry(retryAfter: nil))
    }

    @Test("an unknown reason keeps its text and is judged by its status")
    func unknownReason() {
        guard case .rejected(let rejection) = response(418, error(418, status: "TEAPOT_STATE")) else {
            Issue.record("read as accepted")
            return
        }
        #expect(rejection.reason.rawValue == "TEAPOT_STATE")
        #expect(!rejection.reason.isKnown)
        #expect(rejection.outcome == .failed)
        #expect(response(502, "bad gateway").outcome == .retry(retryAfter: nil))
        guard case .rejected(let bare) = response(404, "") else { return }
        #expect(bare.reason.rawValue == "Unknown404")
        #expect(bare.outcome == .failed)
    }

    @Test("known reasons carry Google's statuses")
    func statuses() {
        #expect(FCMReason.unregistered.status == 404)
        #expect(FCMReason.thirdPartyAuthError.status == 401)
        #expect(FCMReason.quotaExceeded.status == 429)
        #expect(FCMReason.allKnown.count == 12)
    }
}
