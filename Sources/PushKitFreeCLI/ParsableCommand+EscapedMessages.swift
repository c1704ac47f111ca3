import ArgumentParser
import PushKitFreeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ParsableCommand {
    /// Parses the command line, runs the command and exits, as `main(_:)` does, except that an
    /// error message is written with its control characters escaped (`TerminalText`): argument
    /// parsing quotes the offending argument in its messages, and an argument holding escape
    /// sequences or a carriage return could otherwise rewrite the caller's terminal or log line.
    /// Help, version and completion scripts (exit 0) go to standard output unchanged.
    ///
    /// A first word that is no subcommand but near one stops here, with the one it meant
    /// (`Suggestion.mistypedSubcommand`), before a default subcommand can take it as an argument.
    package static func mainEscapingMessages(_ arguments: [String]? = nil) {
        do {
            if let mistyped = Suggestion.mistypedSubcommand(
                in: arguments ?? Array(CommandLine.arguments.dropFirst()), root: self)
            {
                throw mistyped
            }
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { StandardStreams.writeOutput(message + "\n") }
            } else if !message.isEmpty {
                StandardStreams.writeError(TerminalText.escapedKeepingLines(message) + "\n")
            }
            terminateProcess(code.rawValue)
        }
        terminateProcess(0)
    }
}

/// `exit(3)`, named apart from `ParsableCommand.exit(withError:)`.
private func terminateProcess(_ status: Int32) -> Never {
    #if canImport(Glibc)
    Glibc.exit(status)
    #else
    Darwin.exit(status)
    #endif
}
