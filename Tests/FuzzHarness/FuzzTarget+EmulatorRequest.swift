#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeEmulator

extension FuzzTarget {
    /// `apns-emulator`'s judgement of a request. The input is read as text lines: the method, the
    /// path, then `name: value` headers up to an empty line; the rest is the body. The whole input
    /// is also taken apart as a provider token, as `apns-jwt decode` does.
    static func checkEmulatorRequest(_ input: [UInt8]) throws(FuzzViolation) {
        do throws(ProviderTokenFormatError) {
            _ = try DecodedProviderToken(compact: String(decoding: input, as: UTF8.self))
        } catch {
            try FuzzViolation.requireMessage(error.message, from: "the provider token reader")
        }

        let request = EmulatorRequestText(input)
        let key = FuzzFixtures.providerKey
        for strict in [false, true] {
            var trust = APNsRequestValidator.Trust(
                publicKey: key.privateKey.publicKey, keyID: FuzzFixtures.keyID, teamID: FuzzFixtures.teamID,
                bundleID: strict ? FuzzFixtures.bundleID : nil, strictIssuedAt: strict)
            trust.requireAps = strict
            trust.strictPayload = strict
            let validator = APNsRequestValidator(trust: trust, tokenUpdates: ProviderTokenUpdateTracker())
            // Twice on one connection: the second judgement comes from the token cache.
            let first = validator.assess(
                method: request.method, path: request.path, headers: request.headers, body: request.body, now: now)
            let second = validator.assess(
                method: request.method, path: request.path, headers: request.headers, body: request.body, now: now)
            try FuzzViolation.require(
                first.rejection == second.rejection,
                "the same request was judged \(String(describing: first.rejection)), then \(String(describing: second.rejection))"
            )
            if let rejection = first.rejection {
                try FuzzViolation.require(
                    rejection.reason.isKnown && rejection.reason.status == rejection.status,
                    "the emulator answered \(rejection.status) \(rejection.reason)")
                continue
            }
            try FuzzViolation.require(
                first.isAuthenticated, "a request was accepted without an authenticated provider token")
            try FuzzViolation.require(request.method == "POST", "a \(request.method) request was accepted")
            guard let payload = first.payload, let value = try? JSONValue.parse(Data(payload)), value.objectValue != nil
            else {
                throw FuzzViolation("an accepted request's payload is not a JSON object")
            }
            try FuzzViolation.require(
                value == (try? JSONValue.parse(Data(request.body))), "the recorded payload is not the body's JSON")
            try FuzzViolation.require(
                !strict || value["aps"]?.objectValue != nil, "--require-aps accepted a payload without aps")
        }
        try checkChannelRequest(request)
    }

    /// The same request judged as a broadcast and as a channel management call: only Apple's
    /// reasons with their statuses, and nothing accepted without a valid provider token.
    private static func checkChannelRequest(_ request: EmulatorRequestText) throws(FuzzViolation) {
        let key = FuzzFixtures.providerKey
        let channels = EmulatorChannels(limit: 2)
        for strict in [false, true] {
            let trust = APNsRequestValidator.Trust(
                publicKey: key.privateKey.publicKey, keyID: FuzzFixtures.keyID, teamID: FuzzFixtures.teamID,
                bundleID: strict ? FuzzFixtures.bundleID : nil)
            let validator = APNsRequestValidator(trust: trust, tokenUpdates: ProviderTokenUpdateTracker())
            let judge = ChannelRequestJudge(trust: trust, channels: channels, strict: strict)
            let verdicts = [
                judge.judgeBroadcast(
                    method: request.method, path: request.path, headers: request.headers, body: request.body,
                    validator: validator, now: now),
                judge.judgeManagement(
                    method: request.method, path: request.path, headers: request.headers, body: request.body,
                    validator: validator, now: now),
            ]
            for verdict in verdicts {
                if let rejection = verdict.assessment.rejection {
                    try FuzzViolation.require(
                        rejection.reason.isKnown && rejection.reason.status == rejection.status
                            && verdict.status == rejection.status,
                        "a channel request was answered \(verdict.status) \(rejection.reason)")
                } else {
                    try FuzzViolation.require(
                        verdict.assessment.isAuthenticated, "a channel request was accepted without a valid token")
                    try FuzzViolation.require(
                        [200, 201, 204].contains(verdict.status),
                        "a channel request was accepted with \(verdict.status)")
                }
            }
        }
    }
}

/// A request written as text for the emulator target: method line, path line, headers, body.
struct EmulatorRequestText {
    var method = ""
    var path = ""
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []

    init(_ input: [UInt8]) {
        var rest = input[...]
        func line() -> String? {
            guard !rest.isEmpty else { return nil }
            let end = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
            let text = String(decoding: rest[..<end], as: UTF8.self)
            rest = end < rest.endIndex ? rest[(end + 1)...] : rest[end...]
            return text
        }
        method = line() ?? ""
        path = line() ?? ""
        while let header = line(), !header.isEmpty {
            guard let colon = header.firstIndex(of: ":") else {
                headers.append((header, ""))
                continue
            }
            let value = header[header.index(after: colon)...].drop { $0 == " " }
            headers.append((String(header[..<colon]), String(value)))
        }
        body = Array(rest)
    }
}
