import Crypto
import Foundation
import Testing
@testable import PushKitFreeCore
@testable import PushKitFreeEmulator

@Suite("broadcast and channel management validation")
struct ChannelRequestJudgeTests {
    let validator = RequestFixture.validator()
    let channels = EmulatorChannels(limit: 2)
    var judge: ChannelRequestJudge { ChannelRequestJudge(trust: validator.trust, channels: channels) }
    let token = RequestFixture.token()
    let bundle = RequestFixture.bundleID

    func manage(
        _ method: String, _ path: String? = nil, headers extra: [(String, String)] = [], body: String = "",
        judge: ChannelRequestJudge? = nil
    ) -> ChannelRequestVerdict {
        let headers: [(name: String, value: String)] =
            [("authorization", "bearer " + token)] + extra.map { ($0.0, $0.1) }
        return (judge ?? self.judge).judgeManagement(
            method: method, path: path ?? "/1/apps/\(bundle)/channels", headers: headers,
            body: Array(body.utf8), validator: validator, now: RequestFixture.now)
    }

    func broadcast(
        channel: String?, headers extra: [(String, String)] = [],
        body: String = #"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#,
        path: String? = nil, judge: ChannelRequestJudge? = nil
    ) -> ChannelRequestVerdict {
        var headers: [(String, String)] = [("authorization", "bearer " + token), ("apns-push-type", "liveactivity")]
        if let channel { headers.append(("apns-channel-id", channel)) }
        headers += extra
        var unique: [(name: String, value: String)] = []
        for (name, value) in headers {
            if let index = unique.firstIndex(where: { $0.name == name }) { unique.remove(at: index) }
            unique.append((name, value))
        }
        return (judge ?? self.judge).judgeBroadcast(
            method: "POST", path: path ?? "/4/broadcasts/apps/\(bundle)", headers: unique, body: Array(body.utf8),
            validator: validator, now: RequestFixture.now)
    }

    func create(_ policy: Int = 1) -> String? {
        manage("POST", body: #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#).headers.first?.value
    }

    @Test("create answers 201 with a base64 apns-channel-id; read, list and delete find it; then it is gone")
    func lifecycle() throws {
        let id = try #require(create(0))
        #expect(BroadcastChannelID.isWellFormed(id))
        let read = manage("GET", headers: [("apns-channel-id", id)])
        #expect(read.status == 200)
        let configuration = try JSONValue.parse(Data(read.body ?? []))
        #expect(configuration["message-storage-policy"] == .number(0))
        #expect(configuration["push-type"] == .string("LiveActivity"))
        let list = manage("GET", "/1/apps/\(bundle)/all-channels")
        #expect(try JSONValue.parse(Data(list.body ?? []))["channels"] == .array([.string(id)]))
        #expect(manage("DELETE", headers: [("apns-channel-id", id)]).status == 204)
        let again = manage("DELETE", headers: [("apns-channel-id", id)])
        #expect(again.status == 400 && again.assessment.rejection?.reason == .channelNotRegistered)
        let broadcast = broadcast(channel: id)
        #expect(broadcast.assessment.rejection?.reason == .channelNotRegistered && broadcast.status == 400)
    }

    @Test("the limit answers CannotCreateChannelConfig; a deleted channel frees a place")
    func limit() throws {
        let first = try #require(create())
        #expect(create() != nil)
        let third = manage("POST", body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        #expect(third.status == 400 && third.assessment.rejection?.reason == .cannotCreateChannelConfig)
        #expect(manage("DELETE", headers: [("apns-channel-id", first)]).status == 204)
        #expect(create() != nil)
    }

    @Test("management paths, methods, channel ids and bodies are judged as Apple documents")
    func managementRefusals() {
        #expect(manage("GET", "/1/apps/\(bundle)/nothing").assessment.rejection?.reason == .badPath)
        #expect(manage("PUT").assessment.rejection?.reason == .methodNotAllowed)
        #expect(manage("DELETE", "/1/apps/\(bundle)/all-channels").assessment.rejection?.reason == .methodNotAllowed)
        #expect(manage("GET").assessment.rejection?.reason == .missingChannelID)
        #expect(
            manage("GET", headers: [("apns-channel-id", "not base64!")]).assessment.rejection?.reason == .badChannelID)
        #expect(manage("POST", body: #"{"message-storage-policy":1}"#).assessment.rejection?.reason == .missingPushType)
        #expect(
            manage("POST", body: #"{"message-storage-policy":1,"push-type":"alert"}"#).assessment.rejection?.reason
                == .invalidPushType)
        #expect(
            manage("POST", body: #"{"message-storage-policy":2,"push-type":"LiveActivity"}"#).assessment.rejection?
                .reason
                == .badPayload)
        #expect(manage("GET", "/1/apps/other.app/all-channels").assessment.rejection?.reason == .topicDisallowed)
        let unsigned = judge.judgeManagement(
            method: "GET", path: "/1/apps/\(bundle)/all-channels", headers: [], body: [], validator: validator,
            now: RequestFixture.now)
        #expect(unsigned.status == 403 && unsigned.assessment.rejection?.reason == .missingProviderToken)
    }

    @Test("node-apn's string policy and lowercase push type are accepted with a note, refused when strict")
    func lenientCreate() {
        let body = #"{"message-storage-policy":"1","push-type":"liveactivity"}"#
        let lenient = manage("POST", body: body)
        #expect(lenient.status == 201 && lenient.assessment.acceptanceNote?.contains("string") == true)
        let strict = ChannelRequestJudge(trust: validator.trust, channels: channels, strict: true)
        #expect(manage("POST", body: body, judge: strict).assessment.rejection?.reason == .invalidPushType)
        let stringPolicy = #"{"message-storage-policy":"1","push-type":"LiveActivity"}"#
        #expect(manage("POST", body: stringPolicy, judge: strict).assessment.rejection?.reason == .badPayload)
    }

    @Test("broadcast headers: push type, channel id, priority, expiration, payload")
    func broadcastRefusals() throws {
        let id = try #require(create(1))
        #expect(broadcast(channel: id).status == 200)
        #expect(broadcast(channel: nil).assessment.rejection?.reason == .missingChannelID)
        #expect(broadcast(channel: "%%%%").assessment.rejection?.reason == .badChannelID)
        #expect(broadcast(channel: "YWJjZA==").assessment.rejection?.reason == .channelNotRegistered)
        #expect(
            broadcast(channel: id, headers: [("apns-push-type", "alert")]).assessment.rejection?.reason
                == .invalidPushType)
        var noType = broadcast(channel: id, headers: [("apns-push-type", "liveactivity")])
        #expect(noType.status == 200)
        noType = judge.judgeBroadcast(
            method: "POST", path: "/4/broadcasts/apps/\(bundle)",
            headers: [("authorization", "bearer " + token), ("apns-channel-id", id)], body: Array(#"{"aps":{}}"#.utf8),
            validator: validator, now: RequestFixture.now)
        #expect(noType.assessment.rejection?.reason == .missingPushType)
        #expect(broadcast(channel: id, headers: [("apns-priority", "7")]).assessment.rejection?.reason == .badPriority)
        #expect(broadcast(channel: id, headers: [("apns-priority", "1")]).status == 200)
        #expect(
            broadcast(channel: id, headers: [("apns-expiration", "-1")]).assessment.rejection?.reason
                == .badExpirationDate)
        #expect(broadcast(channel: id, body: "").assessment.rejection?.reason == .payloadEmpty)
        #expect(broadcast(channel: id, body: "[1]").assessment.rejection?.reason == .badPayload)
        let large = #"{"aps":{"event":"update"},"x":""# + String(repeating: "a", count: 5200) + #""}"#
        #expect(broadcast(channel: id, body: large).assessment.rejection?.reason == .payloadTooLarge)
        let medium = #"{"aps":{"event":"update"},"x":""# + String(repeating: "a", count: 4500) + #""}"#
        #expect(broadcast(channel: id, body: medium).status == 200, "5 KB for broadcasts")
        #expect(broadcast(channel: id, path: "/4/broadcasts/apps/").assessment.rejection?.reason == .badPath)
    }

    @Test("a key scoped to other topics may not broadcast or manage this app's channels")
    func keyScopedToOtherTopics() throws {
        let id = try #require(create(1))
        var trust = validator.trust
        trust.keyScopes = [RequestFixture.keyID: KeyScope(topics: ["com.example.other"])]
        let scoped = ChannelRequestJudge(trust: trust, channels: channels)
        let scopedValidator = APNsRequestValidator(trust: trust, tokenUpdates: nil)
        let broadcast = scoped.judgeBroadcast(
            method: "POST", path: "/4/broadcasts/apps/\(bundle)",
            headers: [
                ("authorization", "bearer " + token), ("apns-push-type", "liveactivity"), ("apns-channel-id", id),
            ],
            body: Array(#"{"aps":{"event":"update"}}"#.utf8), validator: scopedValidator, now: RequestFixture.now)
        #expect(broadcast.assessment.rejection?.reason == .topicDisallowed)
        #expect(broadcast.assessment.providerTokenProblem?.contains("--key-topics") == true)
        let list = scoped.judgeManagement(
            method: "GET", path: "/1/apps/\(bundle)/all-channels", headers: [("authorization", "bearer " + token)],
            body: [], validator: scopedValidator, now: RequestFixture.now)
        #expect(list.assessment.rejection?.reason == .topicDisallowed)
    }

    @Test("a channel that stores nothing: expiration 0 asked for; other values noted, refused when strict")
    func noStorageExpiration() throws {
        let id = try #require(create(0))
        #expect(broadcast(channel: id, headers: [("apns-expiration", "0")]).assessment.acceptanceNote == nil)
        let later = broadcast(channel: id, headers: [("apns-expiration", "1900000000")])
        #expect(later.status == 200 && later.assessment.acceptanceNote?.contains("Apple asks for 0") == true)
        let strict = ChannelRequestJudge(trust: validator.trust, channels: channels, strict: true)
        #expect(
            broadcast(channel: id, headers: [("apns-expiration", "1900000000")], judge: strict).assessment.rejection?
                .reason
                == .badExpirationDate)
        #expect(broadcast(channel: id, judge: strict).assessment.rejection?.reason == .badExpirationDate)
    }
}
