import Foundation
import Testing
@testable import PushKitFreeCore
@testable import PushKitFreeRegistry

@Suite("registry: empty device ids")
struct RegistryEmptyDeviceIDTests {
    let token = String(repeating: "ab", count: 32)

    @Test("a state file with an empty device id is refused at the id, as import refuses one (found by fuzz-state-file)")
    func refusedInStateFiles() {
        let cases = [
            (
                #"{"version": 1, "devices": {"a": {"token": "\#(token)"},\#n  "": {"token": "\#(token)"}}}"#,
                "line 2, column 3: a device id must not be empty"
            ),
            (#"{"": "\#(token)"}"#, "line 1, column 6: a device id must not be empty"),
        ]
        for (text, detail) in cases {
            #expect {
                _ = try RegisteredDevices(stateFile: Data(text.utf8))
            } throws: { error in
                (error as? JSONSyntaxError)?.detail == detail
            }
        }
        // What list --json prints of a registry imports again.
        let registry = try? RegisteredDevices(
            stateFile: Data(#"{"version": 1, "devices": {" ": {"token": "\#(token)"}}}"#.utf8))
        #expect(registry?.count == 1)
        #expect((try? RegisteredDevices(importing: Data(DeviceListing.jsonLines(registry?.devices ?? []))))?.count == 1)
    }
}
