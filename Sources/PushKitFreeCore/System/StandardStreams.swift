#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to the process's standard streams with `write(2)`.
///
/// Used instead of `FileHandle` so the tools need only `FoundationEssentials`, which keeps start-up
/// in the low milliseconds. Writes are unbuffered: a line reaches a pipe before the process exits or
/// crashes.
package enum StandardStreams {
    /// Writes `text` to standard output.
    package static func writeOutput(_ text: String) {
        write(text, to: 1)
    }

    /// Writes `text` to standard error, where people read it: control characters, escape sequences
    /// and bidirectional overrides that outside text carried into a message show as escapes
    /// (`TerminalText.escapedKeepingLines(_:)`), so no message can drive the terminal.
    package static func writeError(_ text: String) {
        write(TerminalText.escapedKeepingLines(text), to: 2)
    }

    /// Writes `text` (escaped as `writeError` does) as the terminal's status line on standard
    /// error: back to the start of the line, the text, the rest of the line erased, no newline.
    /// For a standard error that is a terminal only.
    package static func writeStatusLine(_ text: String) {
        write("\r" + TerminalText.escapedKeepingLines(text) + "\u{1b}[K", to: 2)
    }

    /// Erases the status line `writeStatusLine` left.
    package static func clearStatusLine() {
        write("\r\u{1b}[K", to: 2)
    }

    /// Writes `bytes` (already UTF-8, e.g. JSON Lines built in one buffer) to standard output.
    package static func writeOutput(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0, to: 1) }
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { write($0, to: descriptor) }
    }

    private static func write(_ buffer: UnsafeBufferPointer<UInt8>, to descriptor: Int32) {
        // A closed or broken pipe is not worth failing over: the caller has nothing better to do.
        var output = FileOutput(descriptor: descriptor, path: descriptor == 1 ? "standard output" : "standard error")
        try? output.write(UnsafeRawBufferPointer(buffer))
    }
}
