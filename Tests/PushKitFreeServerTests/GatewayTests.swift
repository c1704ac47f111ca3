import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PushKitFreeCore
import PushKitFreeRegistry
@testable import PushKitFreeServer
import Testing

/// The Ember gateway's messages: what is read from a message, and what a session does with it
/// (registered in a real state file, through the write queue), over a connection and over HTTP.
@Suite("register-apns serve: the Ember gateway's messages")
struct GatewayTests {
    typealias Endpoint = EndpointRouterTests.Endpoint

    static let token = String(repeating: "ab", count: 32)
    static let rotated = String(repeating: "cd", count: 32)

    static func message(_ text: String) throws(EndpointError) -> GatewayMessage {
        try GatewayMessage(Data(text.utf8))
    }

    static func refusal(_ text: String) -> EndpointError? {
        do {
            _ = try message(text)
            return nil
        } catch {
            return error
        }
    }

    @Test("the served types are read; any other type, or no type, is a 400 naming it")
    func parsing() throws {
        #expect(try Self.message(#"{"type": "ping"}"#) == .ping)
        #expect(
            try Self.message(#"{"type": "register", "client": "ember", "capabilities": []}"#)
                == .register(deviceID: nil))
        #expect(try Self.message(#"{"type": "register", "device_id": "phone"}"#) == .register(deviceID: "phone"))
        guard
            case .deviceToken(let device) = try Self.message(
                #"{"type": "device_token", "token": "ab", "platform": "ios"}"#)
        else {
            Issue.record("not a device_token")
            return
        }
        #expect(device.token == "ab" && device.deviceID == nil)
        guard case .briefingConfig(let members) = try Self.message(#"{"type": "briefing_config", "time": "07:00"}"#)
        else {
            Issue.record("not a briefing_config")
            return
        }
        #expect(members["time"] == "07:00")

        for (text, expected) in [
            (#"{"type": "inbox_list"}"#, #""inbox_list" messages are not served here"#),
            (#"{"type": "memory_save"}"#, "register, device_token, briefing_config, ping"),
            (#"{"kind": "ping"}"#, #"no "type""#),
            (#"{"type": 7}"#, #""type" must be a string"#),
            (#"[{"type": "ping"}]"#, "not array"),
            ("ping", "not JSON"),
            (#"{"type": "device_token", "platform": "ios"}"#, #""token" is missing"#),
            (#"{"type": "device_token", "token": "ab", "platform": "tizen"}"#, #""platform" must be "ios" or"#),
            (#"{"type": "register", "device_id": "a\u0001b"}"#, "control character"),
        ] {
            let error = Self.refusal(text)
            #expect(error?.status.code == 400, "\(text)")
            #expect(error?.message.contains(expected) == true, "\(text): \(error?.message ?? "accepted")")
        }
    }

    @Test("a device_token becomes the core's registration body: device id and APNs token, the rest as sent")
    func registrationBody() throws {
        guard
            case .deviceToken(let device) = try Self.message(
                #"{"type": "device_token", "token": "\#(Self.token)", "platform": "ios", "timezone": "Europe/Berlin", "environment": "sandbox"}"#
            )
        else {
            Issue.record("not a device_token")
            return
        }
        let registration = try DeviceRegistrations.registration(device.registrationBody(deviceID: "phone"))
        #expect(registration.deviceID == "phone" && registration.token.text == Self.token)
        #expect(registration.timeZone == "Europe/Berlin" && registration.environment == .sandbox)
    }

    @Test("a device_token with an FCM token: an FCM device, its environment ignored; platform android states FCM")
    func fcmRegistrationBody() throws {
        let fcm = EndpointTests.fcmTokenText
        func registration(_ text: String) throws -> DeviceRegistration {
            guard case .deviceToken(let device) = try Self.message(text) else { throw EndpointError.badRequest(text) }
            return try DeviceRegistrations.registration(device.registrationBody(deviceID: "pixel"))
        }
        for platform in ["ios", "android"] {
            let taken = try registration(
                #"{"type": "device_token", "token": "\#(fcm)", "platform": "\#(platform)", "environment": "sandbox"}"#)
            #expect(taken.token.text == fcm && taken.token.transport == .fcm && taken.environment == nil)
        }
        #expect {
            try registration(#"{"type": "device_token", "token": "\#(Self.token)", "platform": "android"}"#)
        } throws: {
            ($0 as? EndpointError)?.status.code == 400
                && ($0 as? EndpointError)?.message.contains("\"platform\" is \"android\", but \"token\" is an APNs")
                    == true
        }
        #expect {
            try registration(
                #"{"type": "device_token", "token": "\#(fcm)", "platform": "android", "transport": "apns"}"#)
        } throws: {
            ($0 as? EndpointError)?.status.code == 422
                && ($0 as? EndpointError)?.message.contains("\"transport\" is apns, but the token is an FCM") == true
        }
    }

    @Test(
        "one device per connection: rotation updates it, a briefing_config before it waits for it, another device is refused"
    )
    func socketSession() async throws {
        let endpoint = try Endpoint()
        try await endpoint.test { _ in
            var session = GatewaySession(
                registrations: endpoint.parts.registrations, limiter: endpoint.parts.limiter, transport: .socket,
                client: "127.0.0.1")
            let briefing =
                #"{"type": "briefing_config", "time": "07:30", "timezone": "Europe/Berlin", "sources": ["news"]}"#
            #expect(try await session.answer(try Self.message(briefing)) == GatewayReply.ack, "kept for the token")
            #expect(try endpoint.parts.registrations.read().devices.isEmpty, "nothing stored before the token")
            #expect(try await session.answer(.gatewayFeature(type: "inbox_subscribe")) == .none, "no answer, no error")
            #expect(try await session.answer(.register(deviceID: nil)) == GatewayReply.registered)
            let derived = DeviceRegistration.derivedDeviceID(for: try DeviceToken(validating: Self.token))
            let first = try await session.answer(
                try Self.message(#"{"type": "device_token", "token": "\#(Self.token)", "platform": "ios"}"#))
            #expect(first == GatewayReply.deviceTokenConfirmed(deviceID: derived))
            #expect(
                try endpoint.parts.registrations.read()[derived]?.briefing?.minuteOfDay == 450, "stored with the token")
            #expect(try await session.answer(try Self.message(briefing)) == GatewayReply.ack)
            let second = try await session.answer(
                try Self.message(#"{"type": "device_token", "token": "\#(Self.rotated)"}"#))
            #expect(second == GatewayReply.deviceTokenConfirmed(deviceID: derived))
            await #expect(throws: EndpointError.self) {
                _ = try await session.answer(
                    try Self.message(#"{"type": "device_token", "token": "\#(Self.token)", "device_id": "other"}"#))
            }
            #expect(try await session.answer(.ping) == GatewayReply.pong)

            let devices = try endpoint.parts.registrations.read()
            #expect(devices.devices.map(\.id) == [derived])
            let record = try #require(devices[derived])
            #expect(record.token.text == Self.rotated)
            let stored = try #require(record.briefing)
            #expect(stored.enabled && stored.minuteOfDay == 450 && stored.timeZone == "Europe/Berlin")
            #expect(stored.sources == ["news"])
        }
    }

    @Test("a re-sent briefing_config keeps the day the briefing was last sent; a message's last_sent_on is ignored")
    func briefingKeepsLastSent() async throws {
        let endpoint = try Endpoint()
        try await endpoint.test { _ in
            var session = GatewaySession(
                registrations: endpoint.parts.registrations, limiter: endpoint.parts.limiter, transport: .http,
                client: "127.0.0.1")
            let derived = DeviceRegistration.derivedDeviceID(for: try DeviceToken(validating: Self.token))
            _ = try await session.answer(try Self.message(#"{"type": "device_token", "token": "\#(Self.token)"}"#))
            #expect(session.deviceID == nil, "nothing is kept over HTTP")
            _ = try await session.answer(
                try Self.message(
                    #"{"type": "briefing_config", "token": "\#(Self.token)", "time": "07:00", "timezone": "UTC"}"#))
            let sent = try #require(LocalDate("2026-11-24"))
            try endpoint.parts.registrations.registry.recordBriefingSent([derived: sent])
            _ = try await session.answer(
                try Self.message(
                    #"{"type": "briefing_config", "device_id": "\#(derived)", "time": "08:00", "timezone": "UTC", "last_sent_on": "2020-01-01"}"#
                ))
            let briefing = try #require(try endpoint.parts.registrations.read()[derived]?.briefing)
            #expect(briefing.minuteOfDay == 480 && briefing.lastSentOn == sent)
        }
    }

    @Test("briefing settings: an unknown zone is 422 naming it, other problems 400")
    func briefingStatus() {
        func status(_ members: [String: JSONValue]) -> (Int?, String) {
            do {
                _ = try GatewayMessage.briefingSettings(members)
                return (nil, "")
            } catch {
                return (error.status.code, error.message)
            }
        }
        #expect(status(["time": "07:00", "timezone": "Mars/Base"]).0 == 422)
        #expect(status(["time": "07:00", "timezone": "Mars/Base"]).1.contains("Mars/Base"))
        #expect(status(["time": "25:00", "timezone": "UTC"]).0 == 400)
        #expect(status(["timezone": "UTC"]).0 == 400)
        #expect(status(["time": "07:00", "timezone": 3]).0 == 400)
        #expect(status(["time": "07:00", "timezone": "UTC"]).0 == nil)
    }

    @Test(
        "over HTTP: replies with 200, errors as the protocol's error message with their status; 426 without the upgrade"
    )
    func httpRoute() async throws {
        try await Endpoint().test { client in
            let pong = try await client.execute(
                uri: "/gateway/messages", method: .post, body: ByteBuffer(string: #"{"type": "ping"}"#))
            #expect(pong.status == .ok && String(buffer: pong.body) == "{\"type\":\"pong\"}\n")
            let inbox = try await client.execute(
                uri: "/gateway/messages", method: .post, body: ByteBuffer(string: #"{"type": "inbox_list"}"#))
            #expect(inbox.status == .badRequest)
            let json = try JSONValue.parse(Data(inbox.body.readableBytesView))
            #expect(json["type"] == "error" && json["message"] == json["error"])
            #expect(json["message"]?.stringValue?.contains("inbox_list") == true)
            let unknown = try await client.execute(
                uri: "/gateway/messages", method: .post,
                body: ByteBuffer(
                    string: #"{"type": "briefing_config", "device_id": "x", "time": "07:00", "timezone": "UTC"}"#))
            #expect(unknown.status == .notFound)
            #expect(String(buffer: unknown.body).contains("send its device_token first"))
            let plain = try await client.execute(uri: "/gateway/ws", method: .get)
            #expect(plain.status == .upgradeRequired && plain.headers[.upgrade] == "websocket")
            #expect(String(buffer: plain.body).contains("\"type\":\"error\""))
        }
    }

    @Test("the socket's refusal: the error message without `error`, the close reason cut to 123 bytes")
    func socketRefusal() {
        let reply = GatewaySocket.reply(.unauthorized("wrong secret"), requestID: "r1")
        #expect(reply == ["type": "error", "message": "wrong secret"])
        let long = String(repeating: "é", count: 100)
        let reason = GatewaySocket.closeReason(long)
        #expect(reason.utf8.count <= 123 && long.hasPrefix(reason) && reason.count == 61)
    }
}
