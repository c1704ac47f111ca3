import Testing
@testable import PushKitFreeCore

@Suite("FCM settings")
struct FCMSettingsTests {
    func resolve(env: [String: String] = [:], file values: [String: JSONValue] = [:]) throws -> Configuration {
        var environment = env
        environment["HOME"] = "/home/ada"
        return try Configuration(
            flags: ConfigurationFlags(), environment: environment,
            file: ConfigurationFile(path: "/etc/pk/config.json", exists: true, values: values),
            workingDirectory: "/srv/work")
    }

    @Test("the service account: environment beats file, paths made absolute like the key path")
    func serviceAccount() throws {
        #expect(try resolve().fcmServiceAccount == nil)
        let fromFile = try resolve(file: ["fcm_service_account": "firebase/sa.json"]).fcmServiceAccount
        #expect(fromFile?.value == "/etc/pk/firebase/sa.json")
        #expect(fromFile?.source == .configFile(key: "fcm_service_account", path: "/etc/pk/config.json"))
        let fromEnvironment = try resolve(
            env: ["FCM_SERVICE_ACCOUNT": "sa.json"], file: ["fcm_service_account": "other.json"]
        ).fcmServiceAccount
        #expect(fromEnvironment == Setting("/srv/work/sa.json", from: .environment("FCM_SERVICE_ACCOUNT")))
        #expect(
            try resolve(env: ["FCM_SERVICE_ACCOUNT": "~/sa.json"]).fcmServiceAccount?.value == "/home/ada/sa.json")
    }

    @Test("the send API's base: environment beats file beats Google's")
    func url() throws {
        #expect(try resolve().fcmURL == Setting("https://fcm.googleapis.com", from: .defaultValue))
        #expect(try resolve(file: ["fcm_url": "https://127.0.0.1:2198"]).fcmURL.value == "https://127.0.0.1:2198")
        #expect(
            try resolve(env: ["FCM_URL": "http://localhost:1"], file: ["fcm_url": "https://x"]).fcmURL
                == Setting("http://localhost:1", from: .environment("FCM_URL")))
    }

    @Test("a URL that is not http(s) is refused by name, and the keys are known to the file")
    func validation() {
        #expect {
            try resolve(env: ["FCM_URL": "fcm.googleapis.com"])
        } throws: {
            "\($0)" == "FCM_URL must be an http(s) URL, not \"fcm.googleapis.com\""
        }
        let file = ConfigurationFile(
            path: "/etc/pk/config.json", exists: true, values: ["fcm_url": "https://x", "fcm_service_account": "a"])
        #expect(file.warnings.isEmpty)
    }
}
