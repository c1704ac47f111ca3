import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport

/// Taking back a delivered notification (`send-push --withdraw`, the route, ntfy's clear and
/// delete, Bark's `delete=1`): a background push that carries only the collapse id.
@Suite("withdrawals: the background push that takes a notification back")
struct WithdrawalTests {
    func refusal(_ configure: (inout PushSpecification) -> Void) -> String {
        SpecificationProbe(base: .withdrawal(of: "build-42")).refusal(configure)
    }

    @Test("a background push at priority 5 whose payload is content-available and the id, nothing else")
    func payload() throws {
        let request = try PushSpecification.withdrawal(of: "build-42").build(bundleID: "com.example.app").request
        #expect(request.pushType == .background)
        #expect(request.priority == .considerPower)
        #expect(request.collapseID == nil)
        #expect(
            try JSONValue.parse(request.payload)
                == ["aps": ["content-available": 1], "pushkit": ["withdraw": "build-42"]])
    }

    @Test("the configuration's encryption does not apply; asking for it is refused")
    func encryption() throws {
        let defaults = EncryptionDefaults(encrypt: true)
        let request = try PushSpecification.withdrawal(of: "x").build(bundleID: "com.example.app", encryption: defaults)
            .request
        #expect(request.sealedContent == nil)
        #expect(refusal { $0.encrypt = true }.contains("cannot be encrypted"))
    }

    @Test("an id no notification can have, or anything besides the id, is refused naming it")
    func refusals() {
        for id in ["", String(repeating: "a", count: 65), "a\nb", "\u{7}"] {
            #expect(refusal { $0.withdraw = id }.contains("must be the collapse id"), "\(id.debugDescription)")
        }
        #expect(refusal { $0.withdraw = String(repeating: "é", count: 32) } == "no error", "64 bytes fit")
        let extras: [(String, (inout PushSpecification) -> Void)] = [
            ("--title", { $0.content.title = "x" }), ("--badge", { $0.content.badge = 1 }),
            ("--sound", { $0.sound = "default" }), ("--image", { $0.imageURL = "https://example.com/a.png" }),
            ("--data", { $0.data = ["{}"] }), ("--collapseID", { $0.collapseID = "c" }),
            ("--interruptionLevel", { $0.content.interruptionLevel = .critical }),
            ("--pushType", { $0.pushType = .alert }),
        ]
        for (name, configure) in extras {
            #expect(refusal(configure).contains("cannot be combined with \(name)"), "\(name)")
        }
        #expect(refusal { $0.priority = .immediate } != "no error", "APNs takes background pushes only at 5")
    }
}
