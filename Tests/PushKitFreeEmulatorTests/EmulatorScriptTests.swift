import Testing
import PushKitFreeCore
import PushKitFreeEmulator

@Suite("emulator fault flags and scripted devices")
struct EmulatorScriptTests {
    @Test("--fail-first and --fail-rate parse N/P:STATUS:REASON")
    func parsesFaults() throws {
        let first = try FailFirstFault(argument: "2:429:TooManyRequests")
        #expect(first.count == 2 && first.failure.rejection == APNsRejection(.tooManyRequests))
        #expect(try FailRateFault(argument: "0.25:503:ServiceUnavailable").probability == 0.25)
        #expect(try FailRateFault(argument: "10%:500:InternalServerError").probability == 0.1)
        #expect(try FailFirstFault(argument: "1:500:MyOwnReason").failure.rejection.reason.rawValue == "MyOwnReason")
    }

    @Test(
        "malformed fault flags are usage errors that say what is expected",
        arguments: [
            "x:500:InternalServerError", "1:200:OK", "1:500", "1:500:", "-1:500:InternalServerError", "1:abc:Bad",
            "1:500:Two words",
        ])
    func rejectsFaults(argument: String) {
        #expect(throws: FaultSpecificationError.self) { try FailFirstFault(argument: argument) }
    }

    @Test("fail rates outside 0...1 are refused")
    func rejectsRates() {
        for argument in [
            "1.5:500:InternalServerError", "150%:500:InternalServerError", "-0.1:500:InternalServerError", "p:500:X",
        ] {
            #expect(throws: FaultSpecificationError.self) { try FailRateFault(argument: argument) }
        }
    }

    @Test("scripted device states answer 410 with the time, or BadDeviceToken; tokens compare case-insensitively")
    func deviceStates() {
        var states = ScriptedDeviceStates()
        #expect(states.answer(for: "abcd") == nil)
        states.unregister("ABCD", at: 1234)
        states.markWrongEnvironment("ef01")
        #expect(states.answer(for: "abcd")?.rejection == APNsRejection(.unregistered))
        #expect(states.answer(for: "abcd")?.timestamp == 1234)
        #expect(states.answer(for: "EF01")?.rejection == APNsRejection(.badDeviceToken))
        let hadState = states.register("abcd")
        #expect(hadState)
        #expect(states.answer(for: "abcd") == nil)
        let hadStateAgain = states.register("abcd")
        #expect(!hadStateAgain)
    }

    @Test("token list files: one token per line, optional time, comments and blanks skipped")
    func tokenList() throws {
        let entries = try ScriptedDeviceStates.parseTokenList(
            "# removed devices\nabcd\n\nef01 1700000000000  # with time\r\n", origin: "f")
        #expect(entries.map(\.token) == ["abcd", "ef01"])
        #expect(entries.map(\.timestamp) == [nil, 1_700_000_000_000])
        #expect(throws: ScriptedDeviceStatesError.self) {
            try ScriptedDeviceStates.parseTokenList("abc\n", origin: "f")
        }
        #expect(throws: ScriptedDeviceStatesError.self) {
            try ScriptedDeviceStates.parseTokenList("abcd soon\n", origin: "f")
        }
    }
}
