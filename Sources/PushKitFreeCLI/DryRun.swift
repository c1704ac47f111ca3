import PushKitFreeCore

/// Renders the requests a run would send, for `send-push --dry-run`: method and URL (device token
/// masked unless `fullTokens`), headers with the provider token redacted, and the payload.
package enum DryRun {
    /// The text for `request` sent to each of `targets`, in the target's recorded environment or else the
    /// configuration's, then a line counting the requests not sent.
    package static func render(
        _ request: APNsRequest, targets: [DeliveryTarget], configuration: Configuration, fullTokens: Bool
    ) -> String {
        let payload = String(decoding: request.payload, as: UTF8.self)
        let headers = request.headers(providerToken: "<provider token>")
            .map { "\($0.name): \($0.value)\n" }.joined()
        var text = ""
        for target in targets {
            let environment = target.recordedEnvironment ?? configuration.environment.value
            let token = fullTokens ? target.token.hex : target.token.masked
            text += "POST " + APNsRequest.url(baseURL: configuration.baseURL(for: environment).value, token: token)
            text +=
                "  (device \(target.deviceID.map { TerminalText.field($0) } ?? "-"), \(environment.rawValue))\n"
                + headers + "\n" + payload + "\n\n"
        }
        text += "dry run: \(targets.count) request\(targets.count == 1 ? "" : "s") not sent\n"
        return text
    }

    /// The same requests as JSON Lines, one object per device: `device`, `token`, `environment`,
    /// `method`, `url`, `headers` (an object; the provider token redacted) and `payload` (the JSON
    /// payload itself, not a string of it).
    package static func jsonLines(
        _ request: APNsRequest, targets: [DeliveryTarget], configuration: Configuration, fullTokens: Bool
    ) -> String {
        var headers: [String: JSONValue] = [:]
        for header in request.headers(providerToken: "<provider token>") {
            headers[header.name] = .string(header.value)
        }
        let payload =
            (try? JSONValue.parse(request.payload)) ?? .string(String(decoding: request.payload, as: UTF8.self))
        var text = ""
        for target in targets {
            let environment = target.recordedEnvironment ?? configuration.environment.value
            let token = fullTokens ? target.token.hex : target.token.masked
            let object: [String: JSONValue] = [
                "device": target.deviceID.map(JSONValue.string) ?? .null, "token": .string(token),
                "environment": .string(environment.rawValue), "method": "POST",
                "url": .string(APNsRequest.url(baseURL: configuration.baseURL(for: environment).value, token: token)),
                "headers": .object(headers), "payload": payload,
            ]
            text += JSONValue.object(object).serializedString() + "\n"
        }
        return text
    }
}
