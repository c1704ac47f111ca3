import ArgumentParser
import PushKitFreeCore
import PushKitFreeRegistry
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What every tool does around its core call: resolve the configuration, print warnings, and turn
/// errors into one `tool: message` line on standard error and a sysexits status.
package enum ToolSupport {
    /// The process environment, read once: the configuration's settings, the tz database's `TZ`
    /// and `TZDIR`, the `PATH` companion programs are found on, the emulator's `TMPDIR`.
    package static let environment = ProcessInfo.processInfo.environment

    /// Resolves the shared configuration from the command line's `flags` and the process
    /// environment, printing any warnings (unknown config keys) to standard error. A config file
    /// of a replaced design (`SvenFiles`) reads its devices where that design keeps them.
    package static func configuration(_ flags: ConfigurationFlags, tool: String) throws -> Configuration {
        let configuration = try Configuration.resolve(
            flags: flags, environment: environment, stateFileBesideConfig: SvenFiles.stateFile(besideConfig:))
        for warning in configuration.warnings {
            warn(warning, tool: tool)
        }
        return configuration
    }

    /// Prints `tool: warning: message` to standard error.
    package static func warn(_ message: String, tool: String) {
        StandardStreams.writeError("\(tool): warning: \(message)\n")
    }

    /// Prints the error and returns the exit code to throw from `run()`.
    ///
    /// `PushKitError`s carry their own status; anything else is unexpected and exits 70 (EX_SOFTWARE)
    /// with its description, never a stack trace.
    package static func exitCode(for error: any Error, tool: String) -> ExitCode {
        if let error = error as? PushKitError {
            StandardStreams.writeError("\(tool): \(message(for: error))\n")
            return ExitCode(error.exitStatus.rawValue)
        }
        StandardStreams.writeError("\(tool): unexpected error: \(error)\n")
        return ExitCode(70)
    }

    /// The error's message in the tools' words: settings named by their flags.
    package static func message(for error: any PushKitError) -> String {
        (error as? any SettingError)?.worded(naming: \.flag) ?? error.description
    }

    /// Runs `body`, mapping any thrown error through `exitCode(for:tool:)`.
    package static func run(tool: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ExitCode {
            throw error
        } catch {
            throw exitCode(for: error, tool: tool)
        }
    }
}
