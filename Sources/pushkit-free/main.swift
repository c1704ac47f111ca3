import APNsJWTCommand
import PushKitFreeCore
import RegisterAPNsCommand
import SendPushCommand

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// One program for the three light tools, chosen by the name it is called by (argv[0]), the way
// busybox works: `apns-jwt`, `register-apns` and `send-push` are links to it. They share nearly all
// of their code (the core, the registry, argument parsing, swift-crypto and the Swift runtime), so
// one copy of it ships instead of three (docs/internals.md, "One program, three names").
// `pushkit-free TOOL ARGUMENTS...` runs the same way, for a copy without the links.

/// The tools this program is, by the names they are called by.
let tools: [(name: String, main: () -> Void)] = [
    ("apns-jwt", APNsJWTTool.main),
    ("register-apns", RegisterAPNsTool.main),
    ("send-push", SendPushTool.main),
]

/// The last path component of how this program was called.
func calledName() -> String {
    let path = CommandLine.arguments.first ?? ""
    return path.split(separator: "/").last.map(String.init) ?? path
}

let usage = """
    usage: pushkit-free TOOL [ARGUMENTS...]
       or: TOOL [ARGUMENTS...]   (a link to pushkit-free named after the tool)
    Tools: \(tools.map(\.name).joined(separator: ", ")). `pushkit-free TOOL --help` explains one.

    """

if let tool = tools.first(where: { $0.name == calledName() }) {
    tool.main()
} else if CommandLine.arguments.count > 1, let tool = tools.first(where: { $0.name == CommandLine.arguments[1] }) {
    // Runs itself again under the tool's name, so the tool sees its arguments (and names itself in
    // messages and --help) exactly as when called through its link. Returns only on failure.
    var argv: [UnsafeMutablePointer<CChar>?] = CommandLine.arguments.dropFirst().map { strdup($0) } + [nil]
    #if os(Linux)
    execv("/proc/self/exe", &argv)
    #else
    execvp(CommandLine.arguments[0], &argv) // untested: no /proc outside Linux
    #endif
    StandardStreams.writeError("pushkit-free: cannot run \(tool.name): \(String(cString: strerror(errno)))\n")
    exit(ExitStatus.unavailable.rawValue)
} else {
    switch CommandLine.arguments.dropFirst().first {
    case "--help", "-h", "help":
        StandardStreams.writeOutput(usage)
    case "--version":
        StandardStreams.writeOutput(PushKitFree.version + "\n")
    case let word?:
        let hint = Suggestion.closest(to: word, among: tools.map(\.name)).map { " (did you mean \($0)?)" } ?? ""
        StandardStreams.writeError("pushkit-free: no tool named '\(word)'\(hint)\n" + usage)
        exit(ExitStatus.usage.rawValue)
    case nil:
        StandardStreams.writeError(usage)
        exit(ExitStatus.usage.rawValue)
    }
}
