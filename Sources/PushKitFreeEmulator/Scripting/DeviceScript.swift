import PushKitFreeCore

/// `--script-file`: how the emulator answers each device token, request by request. Each line holds
/// a hex token and its steps separated by commas; the n-th valid request to the token takes the
/// n-th step, and the last step repeats for every request after it:
///
/// ```text
/// # token                                                          steps
/// 0a1b...  500:InternalServerError,ok      one 500, then delivered
/// 0a1c...  delay:3000                      every answer 3 s late
/// 0a1d...  stall,ok                        the first request is never answered
/// ```
///
/// A step is `ok` (answer as usual), `delay:MS` (answer as usual, MS milliseconds late), `stall`
/// (never answer; the stream stays open until the client gives up) or `STATUS:REASON` (an error
/// answer). Tokens compare case-insensitively.
///
/// An FCM registration token (see `FCMMessageJudge.isRegistrationTokenShaped`) takes `ok` or an
/// FCM error code as a step: `UNREGISTERED` (404), `QUOTA_EXCEEDED` (429 with `Retry-After`),
/// `UNAVAILABLE` (503; both take `:SECONDS` for another `Retry-After`), `INTERNAL` (500), `SENDER_ID_MISMATCH` (403), `THIRD_PARTY_AUTH_ERROR` (401)
/// or `INVALID_ARGUMENT` (400), each answered in Google's error shape with its FcmError detail. This is the per-device counterpart of
/// `--fail-first` and `--delay`, for fault mixes where each device has its own story.
package struct DeviceScript: Sendable, Equatable {
    /// One answer in a device's script.
    package enum Step: Sendable, Equatable {
        /// Answer as usual (the other fault flags and scripted device states still apply).
        case ok
        /// Answer as usual, this many milliseconds late.
        case delay(milliseconds: Int64)
        /// Never answer.
        case stall
        /// Answer this error.
        case fail(InjectedFailure)
        /// Answer this FCM error code (an FCM registration token's step).
        case fcm(String)
    }

    /// Each token's steps, keyed by the lowercase token; never empty.
    package private(set) var steps: [String: [Step]] = [:]

    /// No token scripted.
    package init() {}

    /// Whether no token has a script (the common case, checked first on the hot path).
    package var isEmpty: Bool { steps.isEmpty }

    /// The step for the request numbered `index` (from 0) to `token`, or `nil` if it has no script.
    package func step(for token: String, index: Int) -> Step? {
        guard !steps.isEmpty, let list = steps[token.lowercased()] else { return nil }
        return list[min(index, list.count - 1)]
    }

    /// Gives `token` the steps `list`, replacing any it had.
    package mutating func set(_ list: [Step], for token: String) {
        precondition(!list.isEmpty, "a device script has at least one step")
        steps[token.lowercased()] = list
    }

    /// Parses a script file; blank lines and `#` comments are skipped.
    /// - Parameter origin: names the file in errors.
    package static func parse(_ text: String, origin: String) throws(ScriptedDeviceStatesError) -> DeviceScript {
        var script = DeviceScript()
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if fields.isEmpty { continue }
            let place = "\(origin) line \(number + 1)"
            let token = String(fields[0])
            let isFCM = FCMMessageJudge.isRegistrationTokenShaped(token)
            guard isFCM || APNsRequestValidator.isHexOfEvenLength(token) else {
                throw ScriptedDeviceStatesError(
                    "\(place): \"\(token)\" is neither a hex device token nor an FCM registration token")
            }
            guard fields.count == 2 else {
                throw ScriptedDeviceStatesError(
                    "\(place): expected a token and its steps separated by commas, e.g. 500:InternalServerError,ok")
            }
            var list: [Step] = []
            for text in fields[1].split(separator: ",", omittingEmptySubsequences: false) {
                list.append(try isFCM ? parseFCMStep(text, place: place) : parseStep(text, place: place))
            }
            script.set(list, for: token)
        }
        return script
    }

    private static func parseFCMStep(_ text: Substring, place: String) throws(ScriptedDeviceStatesError) -> Step {
        if text == "ok" { return .ok }
        guard FCMErrorAnswer.scripted(String(text)) != nil else {
            throw ScriptedDeviceStatesError(
                "\(place): unknown step \"\(text)\" for an FCM token; a step is ok or one of "
                    + FCMErrorAnswer.scriptableCodes.joined(separator: ", ")
                    + " (QUOTA_EXCEEDED and UNAVAILABLE take :SECONDS for their Retry-After)")
        }
        return .fcm(String(text))
    }

    private static func parseStep(_ text: Substring, place: String) throws(ScriptedDeviceStatesError) -> Step {
        switch text {
        case "ok": return .ok
        case "stall": return .stall
        default: break
        }
        if text.hasPrefix("delay:") {
            guard let milliseconds = Int64(text.dropFirst("delay:".count)), milliseconds >= 0 else {
                throw ScriptedDeviceStatesError(
                    "\(place): \"\(text)\" must be delay:MS with MS a whole number of milliseconds")
            }
            return .delay(milliseconds: milliseconds)
        }
        guard text.first?.isNumber == true else {
            throw ScriptedDeviceStatesError(
                "\(place): unknown step \"\(text)\"; a step is ok, stall, delay:MS or STATUS:REASON")
        }
        do {
            return .fail(try InjectedFailure.parse(text, flag: place))
        } catch {
            throw ScriptedDeviceStatesError(error.message)
        }
    }
}
