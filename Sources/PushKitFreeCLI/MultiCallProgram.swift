#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushKitFreeCore
import PushKitFreeTimeZones

/// A program that is several tools, the tool chosen by the name it is called by (argv[0]), the way
/// busybox works: each tool's name is a link to the program. `pushkit-free` is the three light
/// tools; `pushkit-free-server` is the three that serve (docs/internals.md, "One program, several
/// names"). Called by its own name (or any other), `PROGRAM TOOL ARGUMENTS...` runs a tool too, for
/// a copy without the links.
///
/// `Entry` is how a tool is started: `() -> Void` for the light tools, `() async -> Void` where a
/// tool's command is asynchronous.
package struct MultiCallProgram<Entry> {
    /// The program's own name, in its usage.
    package let name: String
    /// The tools, by the names they are called by, in the order the usage lists them.
    package let tools: [(name: String, entry: Entry)]
    /// The other program and its tools, named when a word asks this program for one of them.
    package let sibling: (name: String, tools: [String])

    package init(name: String, tools: [(name: String, entry: Entry)], sibling: (name: String, tools: [String])) {
        self.name = name
        self.tools = tools
        self.sibling = sibling
    }

    /// The tool this process is: the one named by argv[0]'s last path component. The process's tz
    /// database (`TZ`, `TZDIR`) is set from the environment first, for every tool.
    ///
    /// Otherwise this does not return. With a tool's name as the first argument, it runs this
    /// program again under that name, so the tool sees its arguments (and names itself in messages
    /// and `--help`) exactly as through its link. `--help` and `--version` print and exit 0; nothing,
    /// or a word that names no tool, prints the usage (with a suggestion for a near miss) and exits 64.
    package func selectedTool() -> Entry {
        TimeZoneDatabase.system = TimeZoneDatabase(environment: ToolSupport.environment)
        let arguments = CommandLine.arguments
        if let tool = tools.first(where: { $0.name == Self.calledName(arguments.first ?? "") }) {
            return tool.entry
        }
        let first = arguments.dropFirst().first
        if let first, let tool = tools.first(where: { $0.name == first }) {
            var argv: [UnsafeMutablePointer<CChar>?] = arguments.dropFirst().map { strdup($0) } + [nil]
            #if os(Linux)
            execv("/proc/self/exe", &argv)
            #else
            execvp(arguments[0], &argv) // untested: no /proc outside Linux
            #endif
            StandardStreams.writeError("\(name): cannot run \(tool.name): \(String(cString: strerror(errno)))\n")
            exit(ExitStatus.unavailable.rawValue)
        }
        switch first {
        case "--help", "-h", "help":
            StandardStreams.writeOutput(usage)
            exit(0)
        case "--version":
            StandardStreams.writeOutput(PushKitFree.version + "\n")
            exit(0)
        case let word? where sibling.tools.contains(word):
            StandardStreams.writeError(
                "\(name): \(word) is a tool of \(sibling.name), not of \(name): run \(word) or \(sibling.name) \(word)\n"
            )
            exit(ExitStatus.usage.rawValue)
        case let word?:
            let hint = Suggestion.closest(to: word, among: tools.map(\.name)).map { " (did you mean \($0)?)" } ?? ""
            StandardStreams.writeError("\(name): no tool named '\(word)'\(hint)\n" + usage)
            exit(ExitStatus.usage.rawValue)
        case nil:
            StandardStreams.writeError(usage)
            exit(ExitStatus.usage.rawValue)
        }
    }

    /// What `--help` prints, and what a call that names no tool prints on standard error.
    package var usage: String {
        """
        usage: \(name) TOOL [ARGUMENTS...]
           or: TOOL [ARGUMENTS...]   (a link to \(name) named after the tool)
        Tools: \(tools.map(\.name).joined(separator: ", ")). `\(name) TOOL --help` explains one.

        """
    }

    /// The last path component of how this program was called.
    static func calledName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
