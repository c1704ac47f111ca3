import Foundation
import PushKitFreeCLI
import PushKitFreeCore
import Testing

@Suite("typed options end to end")
struct TypedOptionsEndToEndTests {
    @Test("every flag the core's messages can name is an option of send-push")
    func settingFlagsExist() throws {
        let help = try BuiltTool.run("send-push", ["--help"], environment: [:])
        help.expectSuccess()
        for setting in SendSetting.allCases {
            #expect(
                help.stdout.contains(setting.flag + " "),
                "\(setting) is worded \(setting.flag), which send-push does not have")
        }
    }

    @Test("--help lists the values of every fixed-value option")
    func helpListsValues() throws {
        let help = try BuiltTool.run("send-push", ["--help"], environment: [:]).stdout
        for values in [
            "(values: passive, active, time-sensitive, critical)", "(values: low, normal, high, critical)",
            "(values: passive, skip, ignore)", "(values: start, update, end)", "(values: 10, 5, 1)",
            "(values: production, sandbox)",
        ] {
            #expect(help.replacing(/\s+/, with: " ").contains(values), "\(values) not in send-push --help")
        }
        let add = try BuiltTool.run("register-apns", ["add", "--help"], environment: [:]).stdout
        #expect(add.replacing(/\s+/, with: " ").contains("(values: apns, fcm)"), "--transport in add --help")
    }
}
