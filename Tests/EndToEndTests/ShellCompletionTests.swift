import Foundation
import Testing

/// `make install` writes these scripts; each tool must generate them for every shell it supports.
@Suite("shell completions")
struct ShellCompletionTests {
    @Test(
        "every tool generates bash, zsh and fish completions that know its flags",
        arguments: [
            ("apns-jwt", "--refresh"), ("register-apns", "--from-json"), ("send-push", "--hook"),
            ("apns-emulator", "--record"), ("pushkit-mcp", "--state-file"),
        ])
    func completions(tool: String, flag: String) throws {
        for shell in ["bash", "zsh", "fish"] {
            let result = try BuiltTool.run(tool, ["--generate-completion-script", shell])
            result.expectSuccess()
            #expect(result.stdout.contains(flag.dropFirst(2)), "\(tool) \(shell) completion lacks \(flag)")
        }
        let bash = try BuiltTool.run(tool, ["--generate-completion-script", "bash"]).stdout
        let check = try BuiltTool.runSystem("bash", ["-n"], stdin: Data(bash.utf8))
        #expect(check.status == 0, "the bash script parses: \(check.stderr)")
    }
}
