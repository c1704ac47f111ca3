import PushKitFreeCore

/// Standard input as text.
package enum StandardInputText {
    /// All of standard input as UTF-8 text, without the trailing line breaks a shell pipeline adds.
    /// - Parameters:
    ///   - hook: read only what is there without waiting on a quiet pipe or a terminal, and at
    ///     most 64 KiB (see `FileDescriptorInput.readAvailable`), as a hook must never hang or
    ///     fail its caller.
    ///   - name: how a message names the input, e.g. `standard input (--body -)`.
    ///   - limit: the most bytes it may hold when not a hook (`InputFile.textLimit`).
    /// - Throws: `InputFileError` (65) for more than `limit` bytes, (66) when it cannot be read.
    package static func read(
        trimmingTrailingNewlines: Bool, hook: Bool = false, named name: String = "standard input",
        limit: Int = InputFile.textLimit
    ) throws(InputFileError) -> String {
        var text = String(
            decoding: hook ? FileDescriptorInput.readAvailable() : try InputFile.read("-", named: name, limit: limit),
            as: UTF8.self)
        if trimmingTrailingNewlines {
            while let last = text.last, last.isNewline { text.removeLast() }
        }
        return text
    }
}
