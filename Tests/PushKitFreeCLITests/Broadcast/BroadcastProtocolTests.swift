import Foundation
import Testing
@testable import PushKitFreeCLI
@testable import PushKitFreeCore
import PushKitFreeTestSupport

@Suite("broadcast channels: requests and answers as Apple documents them")
struct BroadcastProtocolTests {
    static let channelID = "dHN0LXNyY2gtY2hubA=="

    @Test("create is POST /1/apps/<bundle>/channels with the policy as a number and push-type LiveActivity")
    func create() throws {
        let request = ChannelManagementRequest(bundleID: "com.example.app", operation: .create(.none))
            .http2Request(baseURL: "https://api-manage-broadcast.push.apple.com:2196/", providerToken: "jwt")
        #expect(request.method == .post)
        #expect(request.url == "https://api-manage-broadcast.push.apple.com:2196/1/apps/com.example.app/channels")
        let body = try JSONValue.parse(request.body)
        #expect(body["message-storage-policy"] == .number(0))
        #expect(body["push-type"] == .string("LiveActivity"))
        #expect(request.headers.first { $0.name == "authorization" }?.value == "bearer jwt")
        #expect(!request.headers.contains { $0.name == "apns-channel-id" || $0.name == "apns-topic" })
    }

    @Test("read and delete name the channel in apns-channel-id, never in the path; list uses all-channels")
    func readDeleteList() {
        let read = ChannelManagementRequest(bundleID: "b", operation: .read(channelID: Self.channelID))
            .http2Request(baseURL: "https://m", providerToken: "t")
        #expect(read.method == .get && read.url == "https://m/1/apps/b/channels" && read.body.isEmpty)
        #expect(read.headers.first { $0.name == "apns-channel-id" }?.value == Self.channelID)
        let delete = ChannelManagementRequest(
            bundleID: "b", operation: .delete(channelID: Self.channelID),
            requestID: "0309f412-aa57-46a8-9ac6-b5aeca8c4594"
        ).http2Request(baseURL: "https://m", providerToken: "t")
        #expect(delete.method == .delete && delete.url == "https://m/1/apps/b/channels")
        #expect(delete.headers.first { $0.name == "apns-request-id" }?.value == "0309f412-aa57-46a8-9ac6-b5aeca8c4594")
        let list = ChannelManagementRequest(bundleID: "b", operation: .list).http2Request(
            baseURL: "https://m", providerToken: "t")
        #expect(list.method == .get && list.url == "https://m/1/apps/b/all-channels")
    }

    @Test("answers: 201 with apns-channel-id, a read's configuration, 204, a list, and a 400 reason")
    func answers() {
        #expect(
            ChannelManagementResponse(
                HTTP2Answer(status: 201, headers: ["apns-channel-id": Self.channelID], body: Data()),
                to: .create(.latest))
                == .created(channelID: Self.channelID))
        let read = HTTP2Answer(
            status: 200, headers: [:], body: Data(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#.utf8))
        #expect(
            ChannelManagementResponse(read, to: .read(channelID: "x"))
                == .channel(storagePolicy: .latest, pushType: "LiveActivity"))
        #expect(
            ChannelManagementResponse(HTTP2Answer(status: 204, headers: [:], body: Data()), to: .delete(channelID: "x"))
                == .deleted)
        let list = HTTP2Answer(status: 200, headers: [:], body: Data(#"{"channels":["a","b"]}"#.utf8))
        #expect(ChannelManagementResponse(list, to: .list) == .channels(["a", "b"]))
        let refused = HTTP2Answer(status: 400, headers: [:], body: Data(#"{"reason":"ChannelNotRegistered"}"#.utf8))
        #expect(
            ChannelManagementResponse(refused, to: .read(channelID: "x"))
                == .rejected(APNsRejection(status: 400, reason: .channelNotRegistered)))
        #expect(
            ChannelManagementResponse(HTTP2Answer(status: 201, headers: [:], body: Data()), to: .create(.none))
                == .rejected(APNsRejection(status: 201, reason: APNsReason(rawValue: "Unknown201"))),
            "a 201 without a channel id is not a channel")
    }

    @Test("a broadcast is POST /4/broadcasts/apps/<bundle> with the channel id and push type liveactivity, no topic")
    func broadcastRequest() {
        let notification = APNsRequest(
            bundleID: "com.example.app", pushType: .liveactivity, priority: .considerPower, expiration: 0,
            payload: Data(#"{"aps":{"event":"update"}}"#.utf8))
        let request = BroadcastRequest(notification: notification, channelID: Self.channelID)
            .http2Request(baseURL: "https://api.push.apple.com", providerToken: "t")
        #expect(request.url == "https://api.push.apple.com/4/broadcasts/apps/com.example.app")
        #expect(request.method == .post)
        let headers = Dictionary(request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        #expect(headers["apns-channel-id"] == Self.channelID)
        #expect(headers["apns-push-type"] == "liveactivity")
        #expect(headers["apns-priority"] == "5")
        #expect(headers["apns-expiration"] == "0")
        #expect(headers["apns-topic"] == nil && headers["apns-id"] == nil)
    }

    @Test("a no-storage channel gets expiration 0 unless one is given; a start cannot be broadcast")
    func broadcastRules() throws {
        let payload = Data(#"{"aps":{"event":"update","timestamp":1}}"#.utf8)
        let notification = APNsRequest(bundleID: "b", pushType: .liveactivity, payload: payload)
        let record = ChannelRecord(
            name: "game", id: Self.channelID, environment: .production, storagePolicy: ChannelStoragePolicy.none,
            bundleID: "b", createdAt: Date())
        let none = BroadcastChannels.Target(record: record, id: Self.channelID, environment: .production)
        var warnings: [String] = []
        #expect(
            try BroadcastSender.request(notification, to: none) { warnings.append($0) }.notification.expiration == 0)
        var later = notification
        later.expiration = 1_900_000_000
        #expect(
            try BroadcastSender.request(later, to: none) { warnings.append($0) }.notification.expiration
                == 1_900_000_000)
        #expect(warnings.count == 1 && warnings[0].contains("expiration 0"))
        let bare = BroadcastChannels.Target(record: nil, id: Self.channelID, environment: .production)
        #expect(try BroadcastSender.request(notification, to: bare) { _ in }.notification.expiration == nil)
        let start = APNsRequest(
            bundleID: "b", pushType: .liveactivity, payload: Data(#"{"aps":{"event":"start"}}"#.utf8))
        #expect(throws: PayloadError.self) { try BroadcastSender.request(start, to: bare) { _ in } }
        let alert = APNsRequest(bundleID: "b", pushType: .alert, payload: payload)
        #expect(throws: PayloadError.self) { try BroadcastSender.request(alert, to: bare) { _ in } }
    }

    @Test("channel ids are standard base64")
    func channelIDs() {
        #expect(BroadcastChannelID.isWellFormed(Self.channelID))
        #expect(BroadcastChannelID.isWellFormed("abcd"))
        #expect(!BroadcastChannelID.isWellFormed("abc"), "not a multiple of 4")
        #expect(!BroadcastChannelID.isWellFormed("ab=c"), "padding only at the end")
        #expect(!BroadcastChannelID.isWellFormed("my-channel!!"))
        #expect(!BroadcastChannelID.isWellFormed(String(repeating: "A", count: 260)))
    }

    @Test("a start can ask for an update token or subscribe to a channel, not both, and nothing else can")
    func inputPush() throws {
        var start = LiveActivity(
            event: .start, timestamp: 1, contentState: ["score": .number(0)], attributesType: "Game",
            attributes: ["home": .string("A")])
        start.inputPushToken = true
        try start.validate()
        #expect(start.apsMembers["input-push-token"] == .number(1))
        start.inputPushToken = false
        start.inputPushChannel = Self.channelID
        try start.validate()
        #expect(start.apsMembers["input-push-channel"] == .string(Self.channelID))
        #expect(start.apsMembers["input-push-token"] == nil)
        start.inputPushToken = true
        #expect(throws: PayloadError.self) { try start.validate() }
        start.inputPushToken = false
        start.inputPushChannel = "not a channel"
        #expect(throws: PayloadError.self) { try start.validate() }
        var update = LiveActivity(event: .update, timestamp: 1, contentState: [:])
        update.inputPushToken = true
        #expect(throws: PayloadError.self) { try update.validate() }
    }
}

@Suite("one request, retried like a device's")
struct SingleRequestDeliveryTests {
    func send(
        _ transport: ScriptedTransport, tokens: CountingTokens = CountingTokens(), retries: Int = 3
    ) throws -> SingleRequestDelivery.Outcome {
        try SingleRequestDelivery(
            client: transport, tokens: tokens, policy: DeliveryPolicy(retries: retries), jitter: { 0.5 }
        ).send { token in
            HTTP2Request(
                url: "https://h/4/broadcasts/apps/app", headers: [("authorization", "bearer " + token)], body: Data(),
                tag: 0)
        }
    }

    @Test("429 and 503 are resent after a back-off; the last answer is kept")
    func temporary() throws {
        let transport = ScriptedTransport([
            "app": [
                ScriptedTransport.answer(429, "TooManyRequests"), ScriptedTransport.answer(503, "ServiceUnavailable"),
                ScriptedTransport.answer(200),
            ]
        ])
        let outcome = try send(transport)
        #expect(outcome.attempts == 3 && outcome.answer?.status == 200)
        #expect(transport.pauses.count == 2, "each resend waited its back-off")
    }

    @Test("ChannelNotRegistered is an answer, not retried")
    func permanent() throws {
        let transport = ScriptedTransport(["app": [ScriptedTransport.answer(400, "ChannelNotRegistered")]])
        let outcome = try send(transport)
        #expect(outcome.attempts == 1 && outcome.answer?.status == 400)
    }

    @Test("an expired provider token is replaced once and the request resent at once")
    func expiredToken() throws {
        let tokens = CountingTokens()
        let transport = ScriptedTransport([
            "app": [ScriptedTransport.answer(403, "ExpiredProviderToken"), ScriptedTransport.answer(200)]
        ])
        let outcome = try send(transport, tokens: tokens)
        #expect(outcome.attempts == 2 && outcome.answer?.status == 200)
        #expect(tokens.replaced == ["t1"])
        #expect(transport.sent.map(\.authorization) == ["bearer t1", "bearer t2"])
    }

    @Test("retries stop at the policy's count; a lost connection counts as temporary")
    func exhausted() throws {
        let lost = Result<HTTP2Answer, TransportFailure>.failure(
            TransportFailure(kind: .connectionLost, code: 56, message: "reset"))
        let outcome = try send(ScriptedTransport(["app": [lost]]), retries: 2)
        #expect(outcome.attempts == 3 && outcome.answer == nil && outcome.failure?.kind == .connectionLost)
    }
}
