import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// "Did you mean": the subcommand or option a mistyped word most likely meant.
///
/// Near enough is an optimal-string-alignment distance (insertions, deletions, substitutions and
/// swaps of two neighbours each count one) of at most a third of the candidate's length, and at
/// least 1, at most 2: `remvoe` and `rmove` are `remove`, `lst` and `lsit` are `list`, `chek` is
/// `check`; `phone` is nothing.
package enum Suggestion {
    /// The candidate closest to `word` when it is near enough to be a typo of it; `nil` otherwise,
    /// and for `word` itself (an exact match is no typo). Of equally near candidates, the first.
    package static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let limit = min(2, max(1, candidate.count / 3))
            let distance = Self.distance(word, candidate)
            if distance <= limit, distance < best?.distance ?? .max { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// The optimal-string-alignment distance between `a` and `b`, by characters.
    package static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }

    /// The long options (`--title`) `command` declares, as argument parser describes the command
    /// (for a message about an unknown option: computed only on that path).
    package static func longOptions(of command: any ParsableArguments.Type) -> [String] {
        guard let info = try? JSONValue.parse(Data(command._dumpHelp().utf8)) else { return [] }
        let arguments = info["command"]?["arguments"]?.arrayValue ?? []
        return arguments.flatMap { argument in
            (argument["names"]?.arrayValue ?? []).compactMap { name -> String? in
                guard name["kind"]?.stringValue == "long", let text = name["name"]?.stringValue else { return nil }
                return "--" + text
            }
        }
    }

    /// Whether `command` declares positional arguments, as argument parser describes it.
    static func takesPositionalArguments(_ command: any ParsableCommand.Type) -> Bool {
        guard let info = try? JSONValue.parse(Data(command._dumpHelp().utf8)) else { return false }
        return (info["command"]?["arguments"]?.arrayValue ?? []).contains { $0["kind"]?.stringValue == "positional" }
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
