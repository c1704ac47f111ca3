import Foundation
import Testing
import PushKitFreeCore
@testable import PushKitFreeEmulator

/// `--strict-payload` (`Trust.strictPayload`): the critical sound, background and image rules, each
/// judged through the validator as a device push, with and without the flag.
@Suite("emulator --strict-payload")
struct StrictPayloadTests {
    /// A validator for the fixture's key with `strictPayload` set as asked.
    static func validator(strict: Bool) -> APNsRequestValidator {
        var trust = RequestFixture.validator().trust
        trust.strictPayload = strict
        return APNsRequestValidator(trust: trust, tokenUpdates: nil)
    }

    /// The fixture's request with `body`, sent as `pushType` (its topic and a priority it allows).
    static func request(_ body: String, pushType: String = "alert") -> RequestFixture {
        var request = RequestFixture()
        request.body = Array(body.utf8)
        request.set("apns-push-type", pushType)
        if pushType == "background" { request.set("apns-priority", "5") }
        return request
    }

    /// Payloads that keep every rule: accepted with and without the flag.
    @Test(
        "payloads that keep the rules are accepted with the flag",
        arguments: [
            (#"{"aps":{"alert":"Hi","sound":"default"}}"#, "alert"),
            (#"{"aps":{"alert":"Hi","sound":{"critical":1,"name":"default","volume":0.8}}}"#, "alert"),
            (#"{"aps":{"alert":"Hi","sound":{"critical":0,"name":"chime.caf"}}}"#, "alert"),
            (#"{"aps":{"alert":"Hi","sound":{"name":"default","volume":0}}}"#, "alert"),
            (#"{"aps":{"alert":"Hi","sound":{"critical":1,"name":"default","volume":1}}}"#, "alert"),
            (#"{"aps":{"alert":{"title":"Fire"},"interruption-level":"critical"}}"#, "alert"),
            (#"{"aps":{"alert":"Hi","interruption-level":"time-sensitive"}}"#, "alert"),
            (#"{"aps":{"alert":"Hi","interruption-level":"passive"}}"#, "alert"),
            (#"{"aps":{"content-available":1}}"#, "background"),
            (#"{"aps":{"content-available":1},"job":"sync"}"#, "background"),
            (#"{"aps":{"alert":"Build 42","mutable-content":1},"image_url":"https://example.com/a.png"}"#, "alert"),
            (#"{"caller":"Ada"}"#, "voip"),
        ])
    func accepted(body: String, pushType: String) {
        var request = Self.request(body, pushType: pushType)
        if pushType == "voip" { request.set("apns-topic", RequestFixture.bundleID + ".voip") }
        let assessment = request.assess(with: Self.validator(strict: true))
        #expect(assessment.rejection == nil, "\(assessment.payloadProblem ?? "")")
    }

    /// Each payload breaks one rule: 400 BadPayload whose words name it with the flag, and 200
    /// without the flag.
    @Test(
        "a payload that breaks a rule is 400 BadPayload with the rule in its words; without the flag it is accepted",
        arguments: [
            // 1. the critical sound dictionary, the interruption level, critical alerts
            (
                #"{"aps":{"alert":"Hi","sound":{"critical":1,"name":"default","volume":1.5}}}"#, "alert",
                "aps.sound.volume must be a number from 0 to 1, not 1.5"
            ),
            (
                #"{"aps":{"alert":"Hi","sound":{"name":"default","volume":-0.1}}}"#, "alert",
                "aps.sound.volume must be a number from 0 to 1, not -0.1"
            ),
            (
                #"{"aps":{"alert":"Hi","sound":{"name":"default","volume":"loud"}}}"#, "alert",
                #"aps.sound.volume must be a number from 0 to 1, not "loud""#
            ),
            (
                #"{"aps":{"alert":"Hi","sound":{"critical":2,"name":"default"}}}"#, "alert",
                "aps.sound.critical must be the integer 0 or 1, not 2"
            ),
            (
                #"{"aps":{"alert":"Hi","sound":{"critical":true,"name":"default"}}}"#, "alert",
                "aps.sound.critical must be the integer 0 or 1, not true"
            ),
            (
                #"{"aps":{"alert":"Hi","sound":{"critical":0.5,"name":"default"}}}"#, "alert",
                "aps.sound.critical must be the integer 0 or 1, not 0.5"
            ),
            (
                #"{"aps":{"alert":"Hi","sound":{"critical":1,"volume":0.5}}}"#, "alert",
                "aps.sound must have a name"
            ),
            (
                #"{"aps":{"alert":"Hi","sound":{"critical":1,"name":""}}}"#, "alert",
                #"aps.sound.name must be a non-empty string, not """#
            ),
            (
                #"{"aps":{"alert":"Hi","sound":{"critical":1,"name":"default","loud":true}}}"#, "alert",
                #"aps.sound may hold only critical, name and volume, not "loud""#
            ),
            (
                #"{"aps":{"alert":"Hi","sound":5}}"#, "alert",
                "aps.sound must be a string (a sound file's name) or an object (a critical sound), not 5"
            ),
            (
                #"{"aps":{"alert":"Hi","interruption-level":"urgent"}}"#, "alert",
                #"aps.interruption-level must be one of passive, active, time-sensitive, critical, not "urgent""#
            ),
            (
                #"{"aps":{"sound":{"critical":1,"name":"default"}}}"#, "alert",
                "a critical alert (aps.sound.critical 1 or aps.interruption-level critical) must have aps.alert"
            ),
            (
                #"{"aps":{"alert":null,"interruption-level":"critical"}}"#, "alert",
                "a critical alert (aps.sound.critical 1 or aps.interruption-level critical) must have aps.alert"
            ),
            (
                #"{"aps":{"alert":"Hi","interruption-level":"critical"}}"#, "voip",
                "a critical alert (aps.sound.critical 1 or aps.interruption-level critical) must be an alert push, not voip"
            ),
            // 2. background pushes
            (#"{"aps":{}}"#, "background", "a background push must have aps.content-available 1"),
            (#"{"job":"sync"}"#, "background", "a background push must have aps.content-available 1"),
            (
                #"{"aps":{"content-available":true}}"#, "background",
                "a background push's aps.content-available must be 1, not true"
            ),
            (
                #"{"aps":{"content-available":1,"alert":"Hi"}}"#, "background",
                "a background push's aps may not have alert"
            ),
            (
                #"{"aps":{"content-available":1,"badge":3}}"#, "background",
                "a background push's aps may not have badge"
            ),
            (
                #"{"aps":{"content-available":1,"sound":"default"}}"#, "background",
                "a background push's aps may not have sound"
            ),
            // 3. images
            (
                #"{"aps":{"alert":"Hi","mutable-content":1},"image_url":"http://example.com/a.png"}"#, "alert",
                #"image_url must be a string starting with https://, not "http://example.com/a.png""#
            ),
            (
                #"{"aps":{"alert":"Hi","mutable-content":1},"image_url":42}"#, "alert",
                "image_url must be a string starting with https://, not 42"
            ),
            (
                #"{"aps":{"alert":"Hi"},"image_url":"https://example.com/a.png"}"#, "alert",
                "a payload with image_url must have aps.mutable-content 1"
            ),
            (
                #"{"aps":{"alert":"Hi","mutable-content":true},"image_url":"https://example.com/a.png"}"#, "alert",
                "a payload with image_url must have aps.mutable-content 1"
            ),
            (
                #"{"aps":{"mutable-content":1},"image_url":"https://example.com/a.png"}"#, "alert",
                "a payload with image_url must have aps.alert"
            ),
            (
                #"{"image_url":"https://example.com/a.png"}"#, "alert",
                "a payload with image_url must have aps.mutable-content 1"
            ),
        ])
    func refused(body: String, pushType: String, rule: String) {
        var request = Self.request(body, pushType: pushType)
        if pushType == "voip" { request.set("apns-topic", RequestFixture.bundleID + ".voip") }
        let strict = request.assess(with: Self.validator(strict: true))
        #expect(strict.rejection?.reason == .badPayload)
        #expect(strict.rejection?.status == 400)
        let problem = strict.payloadProblem ?? ""
        #expect(problem.hasPrefix(rule), "\(problem)")
        #expect(problem.hasSuffix("(--strict-payload)"), "\(problem)")

        let lenient = request.assess(with: Self.validator(strict: false))
        #expect(lenient.rejection == nil, "without --strict-payload: \(lenient.payloadProblem ?? "")")
        #expect(lenient.payloadProblem == nil)
    }

    @Test("the volume example's words are exactly the rule, then the flag")
    func exactWords() {
        let request = Self.request(#"{"aps":{"alert":"Hi","sound":{"critical":1,"name":"default","volume":1.5}}}"#)
        #expect(
            request.assess(with: Self.validator(strict: true)).payloadProblem
                == "aps.sound.volume must be a number from 0 to 1, not 1.5 (--strict-payload)")
    }

    @Test("the header checks still answer first: background at priority 10 is BadPriority, with or without the flag")
    func headerChecksFirst() {
        var request = Self.request(#"{"aps":{"content-available":1}}"#, pushType: "background")
        request.set("apns-priority", "10")
        #expect(request.assess(with: Self.validator(strict: true)).rejection?.reason == .badPriority)
        #expect(request.assess(with: Self.validator(strict: false)).rejection?.reason == .badPriority)
        request.set("apns-priority", "5")
        #expect(request.assess(with: Self.validator(strict: true)).rejection == nil)
    }

    @Test("an aps that is not an object keeps its own words; --require-aps still answers a payload without aps")
    func otherPayloadProblemsKeepTheirWords() {
        let notObject = Self.request(#"{"aps":"hi"}"#).assess(with: Self.validator(strict: true))
        #expect(notObject.rejection?.reason == .badPayload)
        #expect(notObject.payloadProblem == #""aps" is a string, not an object"#)

        var trust = RequestFixture.validator().trust
        trust.strictPayload = true
        trust.requireAps = true
        let both = APNsRequestValidator(trust: trust, tokenUpdates: nil)
        let withoutAps = Self.request(#"{"caller":"Ada"}"#).assess(with: both)
        #expect(withoutAps.rejection?.reason == .badPayload)
        #expect(withoutAps.payloadProblem?.contains("--require-aps") == true)
    }

    @Test("inspectPayload holds a payload to the rules only when given a push type, as a broadcast's never is")
    func rulesOnlyWithPushType() {
        var assessment = APNsRequestAssessment()
        let body = Array(#"{"aps":{"alert":"Hi","sound":{"name":"default","volume":9}}}"#.utf8)
        #expect(assessment.inspectPayload(body) == .objectWithAps)
        #expect(assessment.payloadProblem == nil)
        var strict = APNsRequestAssessment()
        #expect(strict.inspectPayload(body, strictPushType: .alert) == .other)
        #expect(strict.payloadProblem?.hasPrefix("aps.sound.volume") == true)
    }
}
