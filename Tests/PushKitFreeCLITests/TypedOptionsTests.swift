import ArgumentParser
import PushKitFreeCLI
import PushKitFreeCore
import Testing

@Suite("typed options: fixed values, delivery options, messages in flags")
struct TypedOptionsTests {
    @Test("fixed-value options parse to the core's types; --help lists their values")
    func fixedValues() {
        #expect(APNsPushType(argument: "ALERT") == .alert)
        #expect(APNsPushType(argument: "fax") == nil)
        #expect(APNsPriority(argument: "5") == .considerPower)
        #expect(APNsPriority(argument: "7") == nil)
        #expect(InterruptionLevel(argument: "time-sensitive") == .timeSensitive)
        #expect(InterruptionLevel.allValueStrings == ["passive", "active", "time-sensitive", "critical"])
        #expect(Urgency(argument: "high") == .high)
        #expect(QuietPolicy(argument: "skip") == .skip)
        #expect(LiveActivity.Event(argument: "stop") == nil)
        #expect(APNsEnvironment(argument: "dev") == .sandbox)
        #expect(APNsEnvironment.allValueStrings == ["production", "sandbox"])
    }

    @Test("--retries and --timeout: each tool's default, checked once by the core, refused in flag words")
    func deliveryOptions() throws {
        let run = try DeliveryOptions<RunDeliveryDefaults>.parse([])
        #expect(try run.policy().timeout == .seconds(30) && run.policy().retries == 3)
        let request = try DeliveryOptions<RequestDeliveryDefaults>.parse(["--retries", "0", "--timeout", "2.5"])
        #expect(try request.policy().timeout == .milliseconds(2500) && request.policy().retries == 0)
        for (arguments, message) in [
            (["--retries", "-1"], "--retries must be 0 or more, not -1"),
            (["--timeout", "0"], "--timeout must be a number of seconds more than 0, not 0"),
            (["--timeout", "-0.5"], "--timeout must be a number of seconds more than 0, not -0.5"),
        ] {
            #expect {
                _ = try DeliveryOptions<RunDeliveryDefaults>.parse(arguments)
            } throws: { error in
                DeliveryOptions<RunDeliveryDefaults>.message(for: error) == message
            }
        }
    }

    @Test("the core's messages name settings; the tools word them with flags")
    func settingMessages() {
        let badge = PayloadError.invalid("\(setting: .badge) must be 0 or more, not -1")
        #expect(badge.description == "the badge must be 0 or more, not -1")
        #expect(ToolSupport.message(for: badge) == "--badge must be 0 or more, not -1")
        let combined = PayloadError.invalid(
            "\(setting: .payloadFile) cannot be combined with \(setting: .liveActivity)")
        #expect(ToolSupport.message(for: combined) == "--payload-file cannot be combined with --live-activity")
        #expect(ToolSupport.message(for: ConfigurationError("plain")) == "plain")
    }

    @Test("every setting has its own flag, spelled as a long option")
    func flags() {
        let flags = SendSetting.allCases.map(\.flag)
        #expect(Set(flags).count == flags.count)
        #expect(flags.allSatisfy { $0.wholeMatch(of: /--[a-z]+(-[a-z]+)*/) != nil })
    }
}
