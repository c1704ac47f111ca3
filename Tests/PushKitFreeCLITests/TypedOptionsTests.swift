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

@Suite("did you mean: the distance and the limit")
struct SuggestionTests {
    @Test("swaps, drops, insertions and substitutions count one each")
    func distance() {
        #expect(Suggestion.distance("remvoe", "remove") == 1)
        #expect(Suggestion.distance("lst", "list") == 1)
        #expect(Suggestion.distance("lsit", "list") == 1)
        #expect(Suggestion.distance("chek", "check") == 1)
        #expect(Suggestion.distance("", "add") == 3)
        #expect(Suggestion.distance("phone", "remove") > 2)
    }

    @Test("near enough is at most a third of the candidate, 1 to 2; the word itself is no typo")
    func closest() {
        let commands = ["add", "remove", "list", "import", "convert"]
        #expect(Suggestion.closest(to: "rmove", among: commands) == "remove")
        #expect(Suggestion.closest(to: "ad", among: commands) == nil, "two characters are nobody's typo")
        #expect(Suggestion.closest(to: "b", among: ["db"]) == nil)
        #expect(Suggestion.closest(to: "adx", among: commands) == "add")
        #expect(Suggestion.closest(to: "abc", among: commands) == nil, "two away from a three-letter name")
        #expect(Suggestion.closest(to: "phone", among: commands) == nil)
        #expect(Suggestion.closest(to: "list", among: commands) == nil)
        #expect(Suggestion.closest(to: "--titel", among: ["--title", "--subtitle"]) == "--title")
    }
}
