import PushKitFreeCore
import PushKitFreeEmulator
import Testing

@Suite("apns-emulator --script-file")
struct DeviceScriptTests {
    let a = String(repeating: "0a", count: 32)
    let b = String(repeating: "0b", count: 32)

    @Test("steps in order; the last repeats; tokens compare case-insensitively; comments and blank lines skipped")
    func parsesAndSteps() throws {
        let script = try DeviceScript.parse(
            """
            # token steps
            \(a.uppercased())  500:InternalServerError,delay:250,ok   # fails once, slow once

            \(b)\tstall
            """, origin: "f")
        #expect(script.step(for: a, index: 0) == .fail(InjectedFailure(status: 500, reason: .internalServerError)))
        #expect(script.step(for: a, index: 1) == .delay(milliseconds: 250))
        #expect(script.step(for: a, index: 2) == .ok)
        #expect(script.step(for: a, index: 9) == .ok)
        #expect(script.step(for: b.uppercased(), index: 3) == .stall)
        #expect(script.step(for: String(repeating: "0c", count: 32), index: 0) == nil)
        #expect(try DeviceScript.parse("# nothing\n\n", origin: "f").isEmpty)
    }

    @Test(
        "a bad line is refused with the file, the line and what is wrong",
        arguments: [
            ("zz ok", "f line 1: \"zz\" is neither a hex device token nor an FCM registration token"),
            ("0a0a", "f line 1: expected a token and its steps separated by commas"),
            ("0a0a ok ok", "f line 1: expected a token and its steps separated by commas"),
            ("0a0a ok,,ok", "f line 1: unknown step \"\""),
            ("0a0a sometimes", "f line 1: unknown step \"sometimes\""),
            ("0a0a delay:-5", "f line 1: \"delay:-5\" must be delay:MS"),
            ("0a0a delay:soon", "f line 1: \"delay:soon\" must be delay:MS"),
            ("0a0a 200:Fine", "the status in \"200:Fine\" must be an HTTP error status"),
            ("0a0a 500:", "the reason in \"500:\" must be a word"),
        ])
    func refusesBadLines(line: String, message: String) {
        #expect {
            _ = try DeviceScript.parse(line, origin: "f")
        } throws: { error in
            (error as? ScriptedDeviceStatesError)?.message.contains(message) == true
                && (error as? ScriptedDeviceStatesError)?.exitStatus == .dataError
        }
    }
}
