#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// Renders the requests a run would send, for `send-push --dry-run`: method and URL (device token
/// masked unless `fullTokens`), headers with the provider token redacted, and the payload. An
/// encrypted send shows what travels in clear, `enc` standing for the sealed content (a fresh
/// nonce each send, so no real value is worth showing), and a device without a content key as
/// refused.
package enum DryRun {
    /// What an encrypted send's dry run shows for `enc`.
    static func sealedMarker(_ request: APNsRequest) -> String {
        "<\(request.sealedContent?.count ?? 0) bytes sealed with the device's content key>"
    }

    /// The payload shown for `target`: the request's, or for an encrypted send its clear part with
    /// the marker as `enc`; `nil` when the send refuses the device (its record cannot be read, or
    /// an encrypted send and it has no content key).
    static func shownPayload(_ request: APNsRequest, for target: DeliveryTarget) -> Data? {
        guard target.unusableRecord == nil else { return nil }
        guard request.sealedContent != nil else { return request.payload }
        guard target.contentKey != nil else { return nil }
        guard case .object(var members)? = try? JSONValue.parse(request.payload) else { return request.payload }
        members[ContentSealing.member] = .string(sealedMarker(request))
        return JSONValue.object(members).serialized()
    }

    /// Why a send refuses `target`, when it does (see `shownPayload`).
    static func refusal(of target: DeliveryTarget) -> String { target.unusableRecord ?? ContentKeyError.missing }

    /// The text for `request` sent to each of `targets`, in the target's recorded environment or else the
    /// configuration's, then a line counting the requests not sent.
    package static func render(
        _ request: APNsRequest, targets: [DeliveryTarget], configuration: Configuration, fullTokens: Bool
    ) -> String {
        let headers = request.headers(providerToken: "<provider token>")
            .map { "\($0.name): \($0.value)\n" }.joined()
        var text = ""
        for target in targets {
            let environment = target.recordedEnvironment ?? configuration.environment.value
            let token = fullTokens ? target.token.shownInFull : target.token.masked
            text += "POST " + APNsRequest.url(baseURL: configuration.baseURL(for: environment).value, token: token)
            text +=
                "  (device \(target.deviceID.map { TerminalText.field($0) } ?? "-"), \(environment.rawValue))\n"
            guard let payload = shownPayload(request, for: target) else {
                text += "refused: \(TerminalText.escaped(refusal(of: target)))\n\n"
                continue
            }
            text += headers + "\n" + String(decoding: payload, as: UTF8.self) + "\n\n"
        }
        text += "dry run: \(targets.count) request\(targets.count == 1 ? "" : "s") not sent\n"
        return text
    }

    /// The same requests as JSON Lines, one object per device: `device`, `token`, `environment`,
    /// `method`, `url`, `headers` (an object; the provider token redacted) and `payload` (the JSON
    /// payload itself, not a string of it; null, with `refused` saying why, for a device an
    /// encrypted send refuses).
    package static func jsonLines(
        _ request: APNsRequest, targets: [DeliveryTarget], configuration: Configuration, fullTokens: Bool
    ) -> String {
        var headers: [String: JSONValue] = [:]
        for header in request.headers(providerToken: "<provider token>") {
            headers[header.name] = .string(header.value)
        }
        var text = ""
        for target in targets {
            let shown = shownPayload(request, for: target)
            let payload: JSONValue =
                shown.map { (try? JSONValue.parse($0)) ?? .string(String(decoding: $0, as: UTF8.self)) } ?? .null
            let environment = target.recordedEnvironment ?? configuration.environment.value
            let token = fullTokens ? target.token.shownInFull : target.token.masked
            var object: [String: JSONValue] = [
                "device": target.deviceID.map(JSONValue.string) ?? .null, "token": .string(token),
                "environment": .string(environment.rawValue), "method": "POST",
                "url": .string(APNsRequest.url(baseURL: configuration.baseURL(for: environment).value, token: token)),
                "headers": .object(headers), "payload": payload,
            ]
            if shown == nil { object["refused"] = .string(refusal(of: target)) }
            text += JSONValue.object(object).serializedString() + "\n"
        }
        return text
    }
}
