#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

extension FuzzTarget {
    /// `send-push --payload-file`: the bytes as a complete payload or a simulator `.apns` file,
    /// with and without a configured topic, and what quiet hours read from it. Any JSON is also
    /// written back (compact and pretty) and must read as the same value.
    static func checkPayload(_ input: [UInt8]) throws(FuzzViolation) {
        let bytes = Data(input)
        try checkJSONRoundTrip(bytes)
        for configuredTopic in ["com.example.app", nil] {
            var spec = PushSpecification()
            spec.payloadFile = bytes
            do {
                let built = try spec.build(bundleID: configuredTopic)
                try requireSendablePayload(built.request.payload, "--payload-file")
                if let configuredTopic {
                    try FuzzViolation.require(
                        built.request.bundleID == configuredTopic, "the configured topic was replaced")
                }
            } catch {
                try requireUserError(error, from: "--payload-file")
            }
            var policy = NotificationPolicy()
            policy.quietHours = QuietHours(start: 0, end: 1439, zone: FixedOffsetTimeZone(offsetMinutes: 0))
            for quietPolicy in [QuietPolicy.passive, .skip] {
                policy.quietPolicy = quietPolicy
                var changed = spec
                _ = policy.apply(to: &changed, urgency: .high, groups: ["fuzz"], topic: configuredTopic, at: now)
                try FuzzViolation.require(changed.payloadFile == bytes, "quiet hours rewrote a --payload-file")
            }
        }
    }

    /// Any JSON document reads back as the same value from what `serialized()` writes.
    static func checkJSONRoundTrip(_ bytes: Data) throws(FuzzViolation) {
        guard let value = try? JSONValue.parse(bytes) else { return }
        for pretty in [false, true] {
            let written = value.serialized(pretty: pretty)
            let reread: JSONValue
            do throws(JSONSyntaxError) {
                reread = try JSONValue.parse(written)
            } catch {
                throw FuzzViolation("JSON written \(pretty ? "pretty" : "compact") does not read back: \(error.detail)")
            }
            try FuzzViolation.require(
                reread == value,
                "JSON written \(pretty ? "pretty" : "compact") reads back as another value: \(String(decoding: written.prefix(200), as: UTF8.self))"
            )
        }
    }

    /// A payload `build` accepted is a JSON object with an `aps` object, within APNs' limit.
    static func requireSendablePayload(_ payload: Data, _ what: String) throws(FuzzViolation) {
        let value: JSONValue
        do throws(JSONSyntaxError) {
            value = try JSONValue.parse(payload)
        } catch {
            throw FuzzViolation("\(what) built a payload that is not JSON: \(error.detail)")
        }
        try FuzzViolation.require(value["aps"]?.objectValue != nil, "\(what) built a payload without an aps object")
        try FuzzViolation.require(
            value[PushSpecification.simulatorBundleKey] == nil,
            "\(what) built a payload that still names the simulator's bundle")
        try FuzzViolation.require(
            payload.count <= APNsPushType.voip.maximumPayloadSize, "\(what) built a payload of \(payload.count) bytes")
    }

    /// A refusal a user sees: one of the tools' typed errors, with a message.
    static func requireUserError(_ error: any Error, from parser: String) throws(FuzzViolation) {
        guard let typed = error as? any PushKitError else {
            throw FuzzViolation("\(parser) failed with an untyped error: \(String(reflecting: error))")
        }
        try FuzzViolation.requireMessage(typed.description, from: parser)
        try FuzzViolation.require(
            typed.exitStatus != .success && typed.exitStatus != .partialFailure,
            "\(parser) failed with exit status \(typed.exitStatus.rawValue): \(typed.description)")
    }
}
