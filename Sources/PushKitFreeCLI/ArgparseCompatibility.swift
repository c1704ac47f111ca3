/// How Python's argparse tells an option from a positional argument, for command lines that scripts
/// written against an argparse parser keep calling (`send-push MESSAGE_ID PREVIEW`).
///
/// argparse takes an argument that starts with `-` as a positional when it is `-` alone, a negative
/// number (`-5`, `-.5`, `-2.5`), or contains a space (`"- item one"`, `"--sandbox is on"`); anything
/// else that starts with `-` is an option. A tool collects the arguments its parser did not recognize
/// and refuses those this calls options, so it accepts every positional argparse would.
package enum ArgparseCompatibility {
    /// Whether argparse would read `argument`, which no known option matched, as an (unknown) option.
    package static func looksLikeOption(_ argument: String) -> Bool {
        guard argument.hasPrefix("-"), argument != "-" else { return false }
        if argument.contains(" ") { return false }
        return !isNegativeNumber(argument)
    }

    /// argparse's `^-\d+$|^-\d*\.\d+$`.
    private static func isNegativeNumber(_ argument: String) -> Bool {
        let digits = argument.utf8.dropFirst()
        guard let dot = digits.firstIndex(of: UInt8(ascii: ".")) else {
            return !digits.isEmpty && digits.allSatisfy(isDigit)
        }
        let whole = digits[..<dot], fraction = digits[digits.index(after: dot)...]
        return whole.allSatisfy(isDigit) && !fraction.isEmpty && fraction.allSatisfy(isDigit)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
