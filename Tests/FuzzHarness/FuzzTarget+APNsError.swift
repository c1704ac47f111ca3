#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeRegistry

extension FuzzTarget {
    /// An APNs answer body, read as delivery reads it for each status Apple sends errors with, then
    /// reported as `send-push` reports it (one line per device, JSON Lines) and applied to the
    /// registry as a 410's timestamp is.
    static func checkAPNsError(_ input: [UInt8]) throws(FuzzViolation) {
        let token: DeviceToken
        do throws(DeviceTokenError) {
            token = try DeviceToken(validating: String(repeating: "ab", count: 32))
        } catch {
            throw FuzzViolation("the fixed token is not one: \(error.message)")
        }
        for status in [400, 403, 404, 405, 410, 413, 429, 500, 503] {
            let answer = HTTP2Answer(
                status: status, headers: ["apns-id": "0a1b2c3d-0000-4000-8000-000000000001"], body: Data(input))
            guard case .rejected(let rejection, let apnsID, let timestamp) = APNsResponse(answer) else {
                throw FuzzViolation("a \(status) answer was read as accepted")
            }
            try FuzzViolation.require(rejection.status == status, "a \(status) answer was read as \(rejection.status)")
            try FuzzViolation.require(
                !rejection.reason.rawValue.isEmpty, "a \(status) answer was read with an empty reason")

            var result = DeliveryResult(
                target: DeliveryTarget(deviceID: "phone", token: token, recordedEnvironment: .production),
                environment: .production)
            result.status = status
            result.reason = rejection.reason.rawValue
            result.apnsID = apnsID
            result.attempts = 1
            result.outcome = status == 410 ? .unregistered : .rejected
            result.unregisteredAt = timestamp
            let report = DeliveryReport(results: [result], seconds: 0.5)
            let lines = report.lines(fullTokens: false)
            try FuzzViolation.require(
                lines.utf8.count(where: { $0 == UInt8(ascii: "\n") }) == 1,
                "the reason \(rejection.reason.rawValue.debugDescription.prefix(200)) breaks send-push's one line per device"
            )
            let json = report.jsonLines(fullTokens: false)
            try FuzzViolation.require(
                json.utf8.count(where: { $0 == UInt8(ascii: "\n") }) == 1,
                "the reason breaks send-push --json's one line per device")
            guard let object = try? JSONValue.parse(Data(json.utf8)),
                object["reason"]?.stringValue == rejection.reason.rawValue
            else {
                throw FuzzViolation("send-push --json does not carry the reason as APNs gave it")
            }

            if let timestamp {
                let text = ISO8601Timestamp.format(timestamp)
                try FuzzViolation.require(
                    text.utf8.count == 24 && ISO8601Timestamp.parse(text) != nil, "the 410 timestamp formats as \(text)"
                )
                var registry = RegisteredDevices()
                let registration: DeviceRegistration
                do throws(RegistryError) {
                    registration = try DeviceRegistration(deviceID: "phone", token: token)
                    try registry.register(registration, at: now)
                } catch {
                    throw FuzzViolation("the fixed registration is refused: \(error.description)")
                }
                let removed = registry.removeIfUnregistered(deviceID: "phone", token: token, unregisteredAt: timestamp)
                try FuzzViolation.require(
                    removed == (timestamp >= now),
                    "a 410 at \(text) for a device registered at \(ISO8601Timestamp.format(now)) \(removed ? "removed" : "kept") it"
                )
                try requireRoundTrip(registry, "registry after a 410", exact: true)
            }
        }
    }
}
