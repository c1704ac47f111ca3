import Foundation
import Testing

/// `apns-jwt`, `register-apns` and `send-push` are one program, `pushkit-free`, and
/// `register-apns-serve`, `apns-emulator` and `pushkit-mcp` another, `pushkit-free-server`; each
/// picks the tool by the name it is called by (docs/internals.md, "One program, several names").
@Suite("pushkit-free and pushkit-free-server: two programs, six names")
struct MultiCallProgramTests {
    /// The name a tool's `--help` gives it: register-apns-serve is `register-apns serve` to its users.
    static func usageName(_ tool: String) -> String {
        tool == "register-apns-serve" ? "register-apns serve" : tool
    }

    @Test("each program's main.swift runs the tools tools.list gives it, in its order, and names the other's")
    func mainListsAreTheToolList() throws {
        #expect(!BuiltTool.lightTools.isEmpty && !BuiltTool.serverTools.isEmpty, "tools.list")
        for (program, own, other) in [
            ("pushkit-free", BuiltTool.lightTools, BuiltTool.serverTools),
            ("pushkit-free-server", BuiltTool.serverTools, BuiltTool.lightTools),
        ] {
            let main = try String(
                contentsOfFile: RepositoryFiles.path("Sources/\(program)/main.swift"), encoding: .utf8)
            let lines = main.split(separator: "\n")
            // `("send-push", SendPushTool.main),`: the dispatch list, in order.
            let dispatched = lines.filter { !$0.contains("sibling:") }.flatMap { line in
                line.matches(of: /^\s*\("([a-z-]+)",/).map { String($0.output.1) }
            }
            #expect(dispatched == own, "\(program)/main.swift dispatches to \(dispatched), tools.list says \(own)")
            let siblingLine = try #require(lines.first { $0.contains("sibling:") })
            let sibling = siblingLine.matches(of: /"([a-z-]+)"/).map { String($0.output.1) }
            #expect(sibling.dropFirst().elementsEqual(other), "\(program)/main.swift's sibling: \(sibling)")
        }
    }

    @Test("each link is its tool: --help names it, and nothing of the other tools' commands")
    func linksAreTheirTools() throws {
        let all = BuiltTool.lightTools + BuiltTool.serverTools
        for tool in all {
            let help = try BuiltTool.run(tool, ["--help"])
            #expect(help.status == 0, "\(tool): \(help.stderr)")
            let usage = Self.usageName(tool)
            #expect(help.stdout.contains("USAGE: \(usage)"), "\(tool): \(help.stdout)")
            for other in all where other != tool {
                let otherUsage = Self.usageName(other)
                // ("register-apns serve" begins with "register-apns": that pair is told apart above.)
                if usage.hasPrefix(otherUsage) { continue }
                #expect(!help.stdout.contains("USAGE: \(otherUsage)"), "\(tool) --help")
            }
        }
    }

    @Test("pushkit-free TOOL ARGUMENTS runs the tool as its link does: same output, same exit status")
    func toolAsFirstArgument() throws {
        for (tool, arguments) in [
            ("send-push", ["--help"]), ("register-apns", ["list", "--json"]), ("apns-jwt", ["decode"]),
            ("send-push", ["--no-such-option"]),
        ] {
            let environment = ["PUSHKIT_STATE_DIR": try TemporaryDirectory().path]
            let direct = try BuiltTool.run(tool, arguments, environment: environment, stdin: Data("x.y.z\n".utf8))
            let named = try BuiltTool.run(
                "pushkit-free", [tool] + arguments, environment: environment, stdin: Data("x.y.z\n".utf8))
            #expect(named.status == direct.status, "\(tool) \(arguments): \(named.stderr)")
            #expect(named.stdout == direct.stdout && named.stderr == direct.stderr, "\(tool) \(arguments)")
        }
        let unknown = try BuiltTool.run("send-push", ["--no-such-option"])
        #expect(
            unknown.status == 64 && unknown.stderr.contains("send-push"), "the tool names itself: \(unknown.stderr)")
        for (tool, arguments) in [
            ("apns-emulator", ["--port", "2197", "--print-env"]), ("pushkit-mcp", ["--no-such-option"]),
            ("register-apns-serve", ["--listen", "nowhere:port"]),
        ] {
            let environment = ["PUSHKIT_STATE_DIR": try TemporaryDirectory().path]
            let direct = try BuiltTool.run(tool, arguments, environment: environment)
            let named = try BuiltTool.run("pushkit-free-server", [tool] + arguments, environment: environment)
            #expect(named.status == direct.status, "\(tool) \(arguments): \(named.stderr)")
            #expect(named.stdout == direct.stdout && named.stderr == direct.stderr, "\(tool) \(arguments)")
        }
    }

    @Test("pushkit-free-server alone or with a word that names no tool: usage on standard error, exit 64")
    func noServerTool() throws {
        let alone = try BuiltTool.run("pushkit-free-server", [])
        #expect(alone.status == 64 && alone.stdout.isEmpty)
        #expect(alone.stderr.contains("register-apns-serve, apns-emulator, pushkit-mcp"), "\(alone.stderr)")
        let unknown = try BuiltTool.run("pushkit-free-server", ["apns-emulatr"])
        #expect(
            unknown.status == 64
                && unknown.stderr.contains("no tool named 'apns-emulatr' (did you mean apns-emulator?)"),
            "\(unknown.stderr)")
        let light = try BuiltTool.run("pushkit-free-server", ["send-push", "--help"])
        #expect(
            light.status == 64 && light.stdout.isEmpty
                && light.stderr.contains(
                    "send-push is a tool of pushkit-free, not of pushkit-free-server: run send-push or pushkit-free send-push"
                ),
            "\(light.stderr)")
        let server = try BuiltTool.run("pushkit-free", ["apns-emulator", "--help"])
        #expect(
            server.status == 64 && server.stdout.isEmpty
                && server.stderr.contains("apns-emulator is a tool of pushkit-free-server, not of pushkit-free"),
            "\(server.stderr)")
        let help = try BuiltTool.run("pushkit-free-server", ["--help"])
        #expect(help.status == 0 && help.stdout.contains("usage: pushkit-free-server TOOL"), "\(help.stdout)")
        let version = try BuiltTool.run("pushkit-free-server", ["--version"])
        let emulatorVersion = try BuiltTool.run("apns-emulator", ["--version"])
        #expect(version.status == 0 && version.stdout == emulatorVersion.stdout && !version.stdout.isEmpty)
    }

    @Test("pushkit-free alone or with a word that names no tool: usage on standard error, exit 64")
    func noTool() throws {
        let alone = try BuiltTool.run("pushkit-free", [])
        #expect(alone.status == 64 && alone.stdout.isEmpty)
        #expect(alone.stderr.contains("apns-jwt, register-apns, send-push"), "\(alone.stderr)")
        let unknown = try BuiltTool.run("pushkit-free", ["send-pushh", "--help"])
        #expect(
            unknown.status == 64 && unknown.stderr.contains("no tool named 'send-pushh' (did you mean send-push?)"),
            "\(unknown.stderr)")
        let help = try BuiltTool.run("pushkit-free", ["--help"])
        #expect(help.status == 0 && help.stdout.contains("usage: pushkit-free TOOL"), "\(help.stdout)")
        let version = try BuiltTool.run("pushkit-free", ["--version"])
        let sendPushVersion = try BuiltTool.run("send-push", ["--version"])
        #expect(version.status == 0 && version.stdout == sendPushVersion.stdout && !version.stdout.isEmpty)
    }

    @Test("a copy under a name that is no tool's is pushkit-free: it never guesses a tool")
    func otherName() throws {
        let directory = try TemporaryDirectory()
        let copy = directory.file("notify")
        try FileManager.default.copyItem(atPath: BuiltTool.path("pushkit-free"), toPath: copy)
        let result = try BuiltTool.runSystem(copy, ["--title", "hi"])
        #expect(result.status == 64 && result.stderr.contains("no tool named '--title'"), "\(result.stderr)")
        let named = try BuiltTool.runSystem(copy, ["apns-jwt", "--help"])
        #expect(named.status == 0 && named.stdout.contains("USAGE: apns-jwt"), "\(named.stderr)")
    }

    @Test("the light tools link neither the MCP SDK nor Hummingbird: only pushkit-free-server pays for them")
    func linkedModules() throws {
        // Swift symbols are mangled with their module's name: `$s3MCP` is the MCP SDK's.
        func symbols(_ program: String) throws -> String {
            let result = try BuiltTool.runSystem("nm", ["--defined-only", BuiltTool.path(program)])
            #expect(result.status == 0, "\(program): \(result.stderr)")
            return result.stdout
        }
        let light = try symbols("pushkit-free")
        #expect(!light.isEmpty && !light.contains("$s3MCP") && !light.contains("$s11Hummingbird"))
        let server = try symbols("pushkit-free-server")
        #expect(server.contains("$s3MCP") && server.contains("$s11Hummingbird"))
    }
}
