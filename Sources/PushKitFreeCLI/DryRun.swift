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
/// refused. An FCM device is shown as FCM is sent: its project's `messages:send` URL (the project
/// from the service account when it can be read), the access token redacted, and the FCM message
/// built from the same notification, the registration token in it masked unless `fullTokens`; a
/// notification FCM cannot carry is shown refused.
package enum DryRun {
    /// What an FCM target's request shows.
    struct FCMShown {
        let url: String
        let headers: [(name: String, value: String)]
        /// The `{"message": ...}` body, or why the send refuses the device.
        let body: Result<JSONValue, PlainMessage>
    }

    /// A refusal's words, as an `Error` a `Result` can hold.
    struct PlainMessage: Error {
        let text: String
    }

    /// The project `configuration`'s service account names, or a placeholder when none is set or it
    /// cannot be read (the real send reports that).
    static func fcmProjectID(_ configuration: Configuration) -> String {
        guard let setting = configuration.fcmServiceAccount,
            let account = try? FCMServiceAccount.load(path: setting.value, source: setting.source)
        else { return "<project id>" }
        return account.projectID
    }

    /// The FCM request for `target` (an FCM device), built as the send builds it.
    static func fcmShown(
        _ request: APNsRequest, target: DeliveryTarget, configuration: Configuration, projectID: String,
        fullTokens: Bool
    ) -> FCMShown {
        let url = FCMMessage.url(baseURL: configuration.fcmURL.value, projectID: projectID)
        let headers = FCMMessage.headers(accessToken: "<access token>")
        guard let token = target.token.fcmToken, let payload = shownPayload(request, for: target) else {
            return FCMShown(url: url, headers: headers, body: .failure(PlainMessage(text: refusal(of: target))))
        }
        do throws(FCMMessageError) {
            let built = try FCMMessage(token: token, request: request, payload: payload, now: Date())
            guard case .object(var message) = built.message else {
                return FCMShown(url: url, headers: headers, body: .success(built.message))
            }
            message["token"] = .string(fullTokens ? token.text : token.masked)
            return FCMShown(url: url, headers: headers, body: .success(.object(["message": .object(message)])))
        } catch {
            return FCMShown(url: url, headers: headers, body: .failure(PlainMessage(text: error.description)))
        }
    }

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
        let projectID = targets.contains { $0.token.transport == .fcm } ? fcmProjectID(configuration) : ""
        for target in targets {
            if target.token.transport == .fcm {
                let shown = fcmShown(
                    request, target: target, configuration: configuration, projectID: projectID, fullTokens: fullTokens)
                text += "POST \(shown.url)  (device \(target.deviceID.map { TerminalText.field($0) } ?? "-"), fcm)\n"
                switch shown.body {
                case .success(let body):
                    text += shown.headers.map { "\($0.name): \($0.value)\n" }.joined()
                    text += "\n" + body.serializedString() + "\n\n"
                case .failure(let refusal):
                    text += "refused: \(TerminalText.escaped(refusal.text))\n\n"
                }
                continue
            }
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

    /// The same requests as JSON Lines, one object per device: `device`, `token`, `transport`,
    /// `environment` (null for FCM), `method`, `url`, `headers` (an object; the provider or access
    /// token redacted) and `payload` (the JSON payload itself, not a string of it: for FCM the
    /// `{"message": ...}` body; null, with `refused` saying why, for a device the send refuses).
    package static func jsonLines(
        _ request: APNsRequest, targets: [DeliveryTarget], configuration: Configuration, fullTokens: Bool
    ) -> String {
        var headers: [String: JSONValue] = [:]
        for header in request.headers(providerToken: "<provider token>") {
            headers[header.name] = .string(header.value)
        }
        var text = ""
        let projectID = targets.contains { $0.token.transport == .fcm } ? fcmProjectID(configuration) : ""
        for target in targets {
            if target.token.transport == .fcm {
                let shown = fcmShown(
                    request, target: target, configuration: configuration, projectID: projectID, fullTokens: fullTokens)
                var object: [String: JSONValue] = [
                    "device": target.deviceID.map(JSONValue.string) ?? .null,
                    "token": .string(fullTokens ? target.token.shownInFull : target.token.masked),
                    "transport": "fcm", "environment": .null, "method": "POST", "url": .string(shown.url),
                    "headers": .object(
                        Dictionary(uniqueKeysWithValues: shown.headers.map { ($0.name, .string($0.value)) })),
                ]
                switch shown.body {
                case .success(let body): object["payload"] = body
                case .failure(let refusal):
                    object["payload"] = .null
                    object["refused"] = .string(refusal.text)
                }
                text += JSONValue.object(object).serializedString() + "\n"
                continue
            }
            let shown = shownPayload(request, for: target)
            let payload: JSONValue =
                shown.map { (try? JSONValue.parse($0)) ?? .string(String(decoding: $0, as: UTF8.self)) } ?? .null
            let environment = target.recordedEnvironment ?? configuration.environment.value
            let token = fullTokens ? target.token.shownInFull : target.token.masked
            var object: [String: JSONValue] = [
                "device": target.deviceID.map(JSONValue.string) ?? .null, "token": .string(token),
                "transport": "apns", "environment": .string(environment.rawValue), "method": "POST",
                "url": .string(APNsRequest.url(baseURL: configuration.baseURL(for: environment).value, token: token)),
                "headers": .object(headers), "payload": payload,
            ]
            if shown == nil { object["refused"] = .string(refusal(of: target)) }
            text += JSONValue.object(object).serializedString() + "\n"
        }
        return text
    }
}
