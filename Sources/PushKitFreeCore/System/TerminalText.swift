/// Text from outside (device names and models, agent and group names, app versions, APNs reasons)
/// made safe to print where a person reads it.
///
/// A terminal acts on control characters and escape sequences (colour, window title, clear screen,
/// bell), and a bidirectional override makes text read differently from what it is. None of them
/// reaches the output raw: each shows as a visible escape, `\n`, `\t`, `\r`, or `\u{1B}` with the
/// scalar's hexadecimal value. Escaped are the C0 and C1 controls, DEL, the line and paragraph
/// separators and the bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to
/// U+202E, U+2066 to U+2069). Other format characters are kept: the zero-width joiner, for one,
/// holds emoji sequences together. JSON output needs none of this; its writer escapes controls.
package enum TerminalText {
    /// How many characters of one free-text field a table or report line shows; longer text is cut
    /// and ends in `…`. Full values stay in the state file and in `--json` output.
    package static let displayLimit = 64

    /// `text` on one line: every character above escaped, line breaks and tabs included.
    package static func escaped(_ text: String) -> String {
        escape(text, keepingLines: false)
    }

    /// `text` escaped as `escaped(_:)` and, when longer than `limit` characters, cut to `limit - 1`
    /// and ended with `…`.
    package static func field(_ text: String, limit: Int = displayLimit) -> String {
        let safe = escape(text, keepingLines: false)
        guard safe.count > limit else { return safe }
        return String(safe.prefix(limit - 1)) + "…"
    }

    /// Lines of output: like `escaped(_:)`, but line feeds and tabs pass, so messages keep their shape.
    package static func escapedKeepingLines(_ text: String) -> String {
        escape(text, keepingLines: true)
    }

    /// Whether `scalar` is shown as an escape.
    package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func escape(_ text: String, keepingLines: Bool) -> String {
        // Nearly all text has nothing to escape: check the bytes first and return it as it is.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 >= 0xC2 }) else { return text }
        guard text.unicodeScalars.contains(where: { needsEscape($0) && !(keepingLines && isKeptLineCharacter($0)) })
        else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar), !(keepingLines && isKeptLineCharacter(scalar)) else {
                result.append(scalar)
                continue
            }
            let shown: String
            switch scalar {
            case "\n": shown = "\\n"
            case "\t": shown = "\\t"
            case "\r": shown = "\\r"
            default: shown = "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
            result.append(contentsOf: shown.unicodeScalars)
        }
        return String(result)
    }

    private static func isKeptLineCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\n" || scalar == "\t"
    }
}
