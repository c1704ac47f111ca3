import Foundation
import Testing
@testable import PushKitFreeCore
@testable import PushKitFreeRegistry

@Suite("registry: registration batches")
struct RegistrationBatchTests {
    @Test("an empty array is refused like empty input, not accepted as nothing to do (found by fuzz-registration)")
    func emptyArrayIsRefused() {
        for text in ["[]", "\n[ ]\r"] {
            #expect {
                _ = try DeviceRegistration.parseRequestBodies(Data(text.utf8), source: "standard input")
            } throws: { error in
                (error as? RegistryError)?.description == "no registration body: standard input is an empty array"
                    && (error as? RegistryError)?.exitStatus == .dataError
            }
        }
        let token = String(repeating: "ab", count: 32)
        #expect(
            (try? DeviceRegistration.parseRequestBodies(
                Data(#"[{"device_token": "\#(token)"}]"#.utf8), source: "standard input"))?.count == 1)
    }
}
