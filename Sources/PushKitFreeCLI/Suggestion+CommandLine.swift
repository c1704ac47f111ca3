import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// The command-line side of "did you mean": the options and subcommands argument parser knows.
extension Suggestion {
    /// The long options (`--title`) `command` declares, as argument parser describes the command
    /// (for a message about an unknown option: computed only on that path).
    package static func longOptions(of command: any ParsableArguments.Type) -> [String] {
        arguments(of: command).flatMap { argument in
            (argument["names"]?.arrayValue ?? []).compactMap { name -> String? in
                guard name["kind"]?.stringValue == "long", let text = name["name"]?.stringValue else { return nil }
                return "--" + text
            }
        }
    }

    /// Whether `command` declares positional arguments, as argument parser describes it.
    static func takesPositionalArguments(_ command: any ParsableCommand.Type) -> Bool {
        arguments(of: command).contains { $0["kind"]?.stringValue == "positional" }
    }

    /// The arguments `command` declares, as argument parser describes them (`_dumpHelp`'s JSON);
    /// none when the description cannot be read.
    private static func arguments(of command: any ParsableArguments.Type) -> [JSONValue] {
        guard let info = try? JSONValue.parse(Data(command._dumpHelp().utf8)) else { return [] }
        return info["command"]?["arguments"]?.arrayValue ?? []
    }

    /// The subcommand a mistyped first word meant, for a command line about to be parsed by `root`.
    ///
    /// Follows the subcommands the arguments name (`register-apns db migrat`), then looks at the
    /// next word: when it is no option and no subcommand of the command reached, but near one, it
    /// is a typo. A command with a default subcommand would otherwise hand the word to that
    /// default as an argument: `register-apns remvoe TOKEN` would register a device called
    /// `remvoe`.
    /// - Returns: the error to stop with (exit 64), naming the word, the subcommand meant, and,
    ///   under a default subcommand, how to pass the word to it on purpose.
    package static func mistypedSubcommand(
        in arguments: [String], root: any ParsableCommand.Type
    ) -> ValidationError? {
        var configuration = root.configuration
        var path = [root._commandName]
        for word in arguments {
            if word.hasPrefix("-") { return nil }
            var names: [String] = []
            var next: CommandConfiguration?
            for subcommand in configuration.subcommands {
                let name = subcommand._commandName
                let settings = subcommand.configuration
                if name == word || settings.aliases.contains(word) { next = settings }
                names.append(name)
            }
            if let next {
                configuration = next
                path.append(word)
                continue
            }
            guard let meant = closest(to: word, among: names) else { return nil }
            var message = "'\(word)' is not a command of \(path.joined(separator: " ")); did you mean '\(meant)'?"
            if let fallback = configuration.defaultSubcommand, takesPositionalArguments(fallback) {
                let name = fallback._commandName
                message +=
                    " (To give '\(word)' to \(name) as an argument, name the command: "
                    + "\((path + [name, word]).joined(separator: " ")) ...)"
            }
            return ValidationError(message)
        }
        return nil
    }
}
