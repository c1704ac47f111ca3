import Foundation
import Testing

/// Issue 16: the tools as existing callers and new users call them. The reply hook's legacy call
/// with previews that start with '-', words that must never become a push, values that are wrong
/// rather than missing, `--version`, hostile text on a terminal, and the doctor.
@Suite("callers: the legacy call, usage errors, --version, hostile text, the doctor")
struct CallerSeamsTests {
    /// `send-push`'s suite: its setup, client environment and helpers, reused rather than copied.
    let base: SendPushEndToEndTests

    init() throws {
        base = try SendPushEndToEndTests()
    }

    static func body(of record: [String: Any]) -> String? {
        let aps = (record["payload"] as? [String: Any])?["aps"] as? [String: Any]
        return (aps?["alert"] as? [String: Any])?["body"] as? String
    }

    // MARK: 1. The Sven call

    @Test(
        "send-push MESSAGE_ID PREVIEW delivers previews and ids that start with '-', as argparse reads them",
        arguments: [
            ("msg-105", "- item one"), ("msg-106", "-5 degrees outside"), ("msg-107", "--sandbox is on"),
            ("-5", "plain"), ("msg-108", "-"), ("msg-109", "-12.5"),
        ])
    func legacyFormWithDashes(messageID: String, preview: String) throws {
        let emulator = try RunningEmulator(["--quiet"], environment: base.setup.environment)
        let env = base.clientEnvironment(emulator)
        try base.register("phone", hexToken(1, filler: "ab"), env: env)
        let result = try BuiltTool.run("send-push", [messageID, preview], environment: env)
        result.expectSuccess()
        let record = try #require(emulator.waitForRecords(1).first)
        #expect(Self.body(of: record) == preview)
        #expect((record["payload"] as? [String: Any])?["message_id"] as? String == messageID)
    }

    @Test("--hook with a reply that starts with '-' (as PREVIEW and on standard input), and --body/--title/--subtitle")
    func hookAndTextOptionsWithDashes() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: base.setup.environment)
        let env = base.clientEnvironment(emulator)
        try base.register("phone", hexToken(1, filler: "ab"), env: env)
        try BuiltTool.run("send-push", ["--hook", "msg-1", "- from argv"], environment: env).expectSuccess()
        _ = emulator.waitForRecords(1)
        try BuiltTool.run("send-push", ["--hook", "msg-2"], environment: env, stdin: Data("- from stdin\n".utf8))
            .expectSuccess()
        _ = emulator.waitForRecords(2)
        try BuiltTool.run("send-push", ["--body", "- item", "--title", "-t x", "--subtitle", "--s"], environment: env)
            .expectSuccess()
        let records = emulator.waitForRecords(3)
        #expect(Set(records.compactMap(Self.body)) == ["- from argv", "- from stdin", "- item"])
        let alert = ((records.last?["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"] as? [String: Any]
        #expect(alert?["title"] as? String == "-t x")
        #expect(alert?["subtitle"] as? String == "--s")
    }

    @Test(
        "help shows help, and no other word of the command line turns into a push",
        arguments: [["help"], ["help", "payload-file"], ["help", "--json"]])
    func helpIsNeverAPush(arguments: [String]) throws {
        let emulator = try RunningEmulator(["--quiet"], environment: base.setup.environment)
        let env = base.clientEnvironment(emulator)
        try base.register("phone", hexToken(1, filler: "ab"), env: env)
        let result = try BuiltTool.run("send-push", arguments, environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("USAGE: send-push"))
        let stray = try BuiltTool.run("send-push", ["payload-file"], environment: env)
        #expect(stray.status == 64)
        Thread.sleep(forTimeInterval: 0.2) // nothing is expected; give a stray push time to show up
        #expect(emulator.records().isEmpty)
    }

    @Test(
        "a wrong value says what is wrong with it, not that it is missing",
        arguments: [
            (["--badge", "-1"], "--badge must be 0 or more"),
            (["--timeout", "-1"], "--timeout must be a number of seconds more than 0, not -1"),
            (["--expiration", "-5"], "--expiration must be a UNIX time in seconds, or 0 to try once, not -5"),
            (["--retries", "-2"], "--retries must be 0 or more, not -2"),
            (["--bogus"], "unknown option '--bogus'"),
            (["msg", "x", "--bogus"], "unknown option '--bogus'"),
        ])
    func wrongValues(arguments: [String], message: String) throws {
        let result = try BuiltTool.run("send-push", arguments, environment: base.setup.environment)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("Missing value"))
    }

    @Test(
        "register-apns names an unknown option instead of asking for DEVICE_ID",
        arguments: [["--bogus"], ["add", "--bogus"], ["phone", "--bogus"]])
    func registerUnknownOption(arguments: [String]) throws {
        let result = try BuiltTool.run("register-apns", arguments, environment: base.setup.environment)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--bogus"), "\(result.stderr)")
        #expect(!result.stderr.contains("missing"), "\(result.stderr)")
    }

    @Test("register-apns add --name takes a name that starts with '-'")
    func registerNameWithDash() throws {
        let env = ["APNS_STATE_FILE": base.devicesFile, "HOME": base.setup.directory.file("home")]
        try BuiltTool.run(
            "register-apns", ["phone", hexToken(1, filler: "ab"), "--name", "- work phone"],
            environment: env
        ).expectSuccess()
        #expect(try base.registry()["phone"]?["name"] as? String == "- work phone")
    }

    @Test("send-push --group with no device is refused like an unknown --device (65), and nothing is sent")
    func unknownGroup() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: base.setup.environment)
        let env = base.clientEnvironment(emulator)
        try base.register("phone", hexToken(1, filler: "ab"), ["--group", "family"], env: env)
        let result = try BuiltTool.run("send-push", ["--group", "nosuch", "--body", "hi"], environment: env)
        #expect(result.status == 65)
        #expect(result.stderr.contains("no device in group \"nosuch\""), "\(result.stderr)")
        try BuiltTool.run("send-push", ["--group", "family", "--body", "hi"], environment: env).expectSuccess()
        #expect(emulator.waitForRecords(1).count == 1)
    }

    // MARK: 6. --version

    @Test(
        "--version on every tool and on register-apns serve prints the OpenAPI document's version, and --help lists it")
    func versions() throws {
        let document = try String(contentsOfFile: RepositoryFiles.path("docs/openapi.yaml"), encoding: .utf8)
        let line = try #require(document.split(separator: "\n").first { $0.hasPrefix("  version: ") })
        let version = line.dropFirst("  version: ".count).trimmingCharacters(in: .whitespaces)
        #expect(version.split(separator: ".").count == 3)
        for arguments in [
            ["apns-jwt"], ["register-apns"], ["send-push"], ["apns-emulator"], ["register-apns", "serve"],
            ["pushkit-mcp"],
        ] {
            let result = try BuiltTool.run(arguments[0], Array(arguments.dropFirst()) + ["--version"])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout == version + "\n", "\(arguments)")
            let help = try BuiltTool.run(arguments[0], Array(arguments.dropFirst()) + ["--help"])
            #expect(help.stdout.contains("--version"), "\(arguments)")
        }
    }

    @Test(
        "make install-files puts stripped tools, manual pages (from --help's definitions) and completions in place; make uninstall removes them all"
    )
    func installAndUninstall() throws {
        let destination = try TemporaryDirectory()
        let variables = ["TOOLS_BIN=\(BuiltTool.binDirectory)", "DESTDIR=\(destination.path)", "PREFIX=/usr/local"]
        let install = try BuiltTool.runSystem(
            "make", ["-C", RepositoryFiles.root, "--no-print-directory", "install-files"] + variables)
        #expect(install.status == 0, "\(install.stdout)\n\(install.stderr)")
        let prefix = destination.path + "/usr/local"
        for tool in ["apns-jwt", "register-apns", "send-push", "apns-emulator", "pushkit-mcp"] {
            #expect(FileManager.default.isExecutableFile(atPath: "\(prefix)/bin/\(tool)"))
            let page = try String(contentsOfFile: "\(prefix)/share/man/man1/\(tool).1", encoding: .utf8)
            #expect(page.contains(".Nm \(tool)"), "\(tool).1")
            #expect(page.contains("version"), "\(tool).1 lists --version")
            #expect(FileManager.default.fileExists(atPath: "\(prefix)/share/bash-completion/completions/\(tool)"))
        }
        let sendPushPage = try String(contentsOfFile: prefix + "/share/man/man1/send-push.1", encoding: .utf8)
        #expect(sendPushPage.contains("-live-activity"), "the page documents the options --help does")
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/register-apns-serve"))
        for tool in BuiltTool.lightTools {
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(prefix)/bin/\(tool)")
            #expect(target == "pushkit-free", "\(tool) is a link to the one program")
            let help = try BuiltTool.runSystem("\(prefix)/bin/\(tool)", ["--help"])
            #expect(help.status == 0 && help.stdout.contains("USAGE: \(tool)"), "\(tool) --help: \(help.stderr)")
        }
        // Stripped, as the Debian package's programs are: no debug information, no symbol table.
        for program in ["pushkit-free", "pushkit-free-server"] {
            let sections = try BuiltTool.runSystem(
                "readelf", ["--section-headers", "--wide", "\(prefix)/bin/\(program)"])
            #expect(sections.status == 0 && sections.stdout.contains(".dynsym"), "\(program): \(sections.stderr)")
            #expect(!sections.stdout.contains(".debug_"), "\(program) is installed with its debug information")
            #expect(!sections.stdout.contains(".symtab"), "\(program) is installed with its symbol table")
        }
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/man/man1/pushkit-free.1"))
        let serveCompletion = try String(
            contentsOfFile: prefix + "/share/bash-completion/completions/register-apns", encoding: .utf8)
        #expect(
            serveCompletion.contains("--rate-limit") && serveCompletion.contains("--secret-file"),
            "register-apns' completions include serve's options")

        let uninstall = try BuiltTool.runSystem(
            "make", ["-C", RepositoryFiles.root, "--no-print-directory", "uninstall"] + variables)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        let left = FileManager.default.enumerator(atPath: destination.path)?.compactMap { $0 as? String }
            .filter { path in
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: destination.path + "/" + path, isDirectory: &isDirectory)
                return !isDirectory.boolValue
            }
        #expect(left == [], "make uninstall leaves nothing install put there")
    }

    // MARK: 4. Hostile text

    static let hostileName = "Ada\u{1B}[31mRED\u{1B}]0;pwned\u{07}\u{1B}[2J\u{202E}evil"

    /// Whether `text` carries anything a terminal acts on: C0/C1 controls but line feed, or a bidi override.
    static func isRaw(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{202E}"
        }
    }

    @Test("device names with escape sequences, BEL, U+202E and 3,000 characters never reach the terminal raw")
    func hostileNamesAreEscaped() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: base.setup.environment)
        let env = base.clientEnvironment(emulator)
        try base.register(
            "evil", hexToken(1, filler: "ab"), ["--name", Self.hostileName, "--model", "\u{1B}[1m"], env: env)
        try base.register("long", hexToken(2, filler: "ab"), ["--name", String(repeating: "x", count: 3000)], env: env)
        let list = try BuiltTool.run("register-apns", ["list"], environment: env)
        list.expectSuccess()
        #expect(!Self.isRaw(list.stdout))
        #expect(list.stdout.contains("Ada\\u{1B}[31mRED\\u{1B}]0;pwned\\u{7}\\u{1B}[2J\\u{202E}evil"))
        #expect(list.stdout.contains(String(repeating: "x", count: 63) + "…"))
        #expect(!list.stdout.contains(String(repeating: "x", count: 65)))
        // The full values stay in the file and in --json output (JSON escapes the controls).
        #expect(try base.registry()["evil"]?["name"] as? String == Self.hostileName)
        let json = try BuiltTool.run("register-apns", ["list", "--json"], environment: env)
        #expect(!Self.isRaw(json.stdout))
        #expect(json.stdout.contains(String(repeating: "x", count: 3000)))
    }

    @Test("a hostile value quoted in an error message is escaped on standard error")
    func hostileErrorMessage() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: base.setup.environment)
        let env = base.clientEnvironment(emulator)
        try base.register("phone", hexToken(1, filler: "ab"), env: env)
        let result = try BuiltTool.run(
            "send-push", ["--device", "x\u{1B}[2J\u{202E}y", "--body", "hi"], environment: env)
        #expect(result.status == 65)
        #expect(!Self.isRaw(result.stderr), "\(result.stderr.debugDescription)")
        #expect(result.stderr.contains("no device \"x\\u{1B}[2J\\u{202E}y\""), "\(result.stderr)")
    }

    // MARK: 5. The doctor

    /// `apns-jwt check` with `base`'s key and `extra` environment.
    func check(_ extra: [String: String], _ arguments: [String] = []) throws -> ToolResult {
        try BuiltTool.run(
            "apns-jwt", ["check"] + arguments, environment: base.setup.environment.merging(extra) { _, new in new })
    }

    /// The report line of `setting`.
    static func line(_ setting: String, in report: String) -> String? {
        report.split(separator: "\n").map(String.init).first { $0.dropFirst(6).hasPrefix(setting + " ") }
    }

    @Test("apns-jwt check fails (78) on a devices file that is corrupt or a directory, naming the file")
    func doctorDevicesFile() throws {
        let directory = base.setup.directory
        let corrupt = try directory.write("corrupt.json", #"{"version": 1, "devices": {"#)
        var result = try check(["APNS_STATE_FILE": corrupt])
        #expect(result.status == 78)
        #expect(Self.line("devices file", in: result.stdout)?.hasPrefix("FAIL") == true, "\(result.stdout)")
        #expect(result.stdout.contains("corrupt.json"))
        #expect(result.stdout.hasSuffix("1 problem to fix\n"), "\(result.stdout)")

        try FileManager.default.createDirectory(
            atPath: directory.file("devices-dir"), withIntermediateDirectories: true)
        result = try check(["APNS_STATE_FILE": directory.file("devices-dir")])
        #expect(result.status == 78)
        #expect(Self.line("devices file", in: result.stdout)?.contains("is a directory") == true, "\(result.stdout)")

        let good = try directory.write("good.json", #"{"phone": "\#(hexToken(1, filler: "ab"))"}"#)
        result = try check(["APNS_STATE_FILE": good])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(Self.line("devices file", in: result.stdout)?.contains("1 device") == true, "\(result.stdout)")
    }

    @Test("apns-jwt check fails (78) when the state directory is a file")
    func doctorStateDirectory() throws {
        let file = try base.setup.directory.write("not-a-dir", "x")
        let result = try check(["PUSHKIT_STATE_DIR": file])
        #expect(result.status == 78)
        #expect(
            Self.line("state dir", in: result.stdout)?.contains("is a file, not a directory") == true,
            "\(result.stdout)")
        let nested = try check(["PUSHKIT_STATE_DIR": file + "/below"])
        #expect(nested.status == 78)
        #expect(Self.line("state dir", in: nested.stdout)?.contains("cannot be created") == true, "\(nested.stdout)")
    }

    @Test(
        "a CA file that is not PEM: apns-jwt check fails (78); send-push stops before any device (78, 66 when missing)")
    func badCAFile() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: base.setup.environment)
        var env = base.clientEnvironment(emulator)
        try base.register("phone", hexToken(1, filler: "ab"), env: env)
        env["APNS_CA_FILE"] = try base.setup.directory.write("ca.pem", "not a certificate\n")
        let doctor = try check(["APNS_CA_FILE": env["APNS_CA_FILE"]!])
        #expect(doctor.status == 78)
        #expect(
            Self.line("ca file", in: doctor.stdout)?.contains("holds no PEM certificate") == true, "\(doctor.stdout)")

        let result = try BuiltTool.run("send-push", ["--body", "hi"], environment: env)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("holds no PEM certificate"))
        #expect(!result.stdout.contains("phone"), "no device was tried")
        let detached = try BuiltTool.run("send-push", ["--detach", "--body", "hi"], environment: env)
        #expect(detached.status == 78, "--detach checks the CA file before it detaches")
        env["APNS_CA_FILE"] = base.setup.directory.file("missing.pem")
        let missing = try BuiltTool.run("send-push", ["--body", "hi"], environment: env)
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(emulator.records().isEmpty)

        let real = try check(["APNS_CA_FILE": emulator.caPath])
        #expect(Self.line("ca file", in: real.stdout)?.hasPrefix("ok") == true, "\(real.stdout)")
    }

    @Test("a corrupt or missing config file is a line of the full report, not a bare error")
    func doctorConfigFile() throws {
        let corrupt = try base.setup.directory.write("config.json", "{ not json")
        let result = try check(["PUSHKIT_CONFIG": corrupt])
        #expect(result.status == 78)
        #expect(Self.line("config file", in: result.stdout)?.contains("is not valid JSON") == true, "\(result.stdout)")
        #expect(
            Self.line("key file", in: result.stdout)?.hasPrefix("ok") == true,
            "the rest is still checked: \(result.stdout)")
        #expect(Self.line("clock", in: result.stdout) != nil)

        let missing = try check([:], ["--config", base.setup.directory.file("nope.json")])
        #expect(missing.status == 78)
        #expect(Self.line("config file", in: missing.stdout)?.contains("does not exist") == true, "\(missing.stdout)")
    }
}
