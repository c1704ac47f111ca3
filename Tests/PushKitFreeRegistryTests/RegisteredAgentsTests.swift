import Testing
@testable import PushKitFreeCore
@testable import PushKitFreeRegistry

@Suite("the registry's agents (proxy chat)")
struct RegisteredAgentsTests {
    @Test("recorded under the agents member; a nil field keeps the recorded one; unknown members stay")
    func recordAndRead() {
        var devices = RegisteredDevices(
            otherFields: ["agents": .object(["k1": .object(["cwd": .string("/old"), "color": .string("red")])])])
        #expect(devices.agent("k1") == RegisteredAgent(cwd: "/old"))
        #expect(devices.agent("k2") == nil)
        devices.recordAgent("k1", RegisteredAgent(cwd: "/srv/app", displayName: "app@server"))
        devices.recordAgent("k1", RegisteredAgent(cwd: "/srv/app"))
        #expect(devices.agent("k1") == RegisteredAgent(cwd: "/srv/app", displayName: "app@server"))
        #expect(devices.otherFields["agents"]?["k1"]?["color"] == .string("red"))
        devices.recordAgent("k2", RegisteredAgent(cwd: "/b"))
        #expect(devices.agent("k2")?.cwd == "/b" && devices.agent("k1")?.displayName == "app@server")
    }

    @Test("recording what is already there changes nothing")
    func unchanged() {
        var devices = RegisteredDevices()
        devices.recordAgent("k", RegisteredAgent(cwd: "/a", displayName: "a"))
        let before = devices
        devices.recordAgent("k", RegisteredAgent(cwd: "/a"))
        #expect(devices == before)
    }
}
