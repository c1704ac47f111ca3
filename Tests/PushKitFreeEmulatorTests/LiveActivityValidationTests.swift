import Foundation
import Testing
import PushKitFreeCore
@testable import PushKitFreeEmulator

/// The emulator judges Live Activity pushes as `send-push --live-activity` builds them.
@Suite("emulator and Live Activities")
struct LiveActivityValidationTests {
    @Test("the emulator accepts a Live Activity push at priority 10, 5 or none, as Apple documents")
    func emulatorAcceptsLiveActivity() throws {
        var spec = PushSpecification()
        spec.pushType = .liveactivity
        spec.content.title = "Build"
        spec.content.body = "started"
        spec.content.liveActivity = LiveActivity(
            event: .start, timestamp: 1_700_000_000, contentState: ["step": "compile", "progress": 0],
            attributesType: "BuildAttributes", attributes: ["project": "pushkit"]
        )
        let request = try spec.build(bundleID: "com.example.app").request
        for priority in ["10", "5", nil] {
            var fixture = RequestFixture()
            fixture.set("apns-push-type", "liveactivity")
            fixture.set("apns-topic", request.topic)
            fixture.set("apns-priority", priority)
            fixture.body = Array(request.payload)
            #expect(fixture.reason == nil, "priority \(priority ?? "absent")")
        }
        var wrongTopic = RequestFixture()
        wrongTopic.set("apns-push-type", "liveactivity")
        #expect(wrongTopic.reason == .deviceTokenNotForTopic, "the bare bundle id is not the liveactivity topic")
    }
}
