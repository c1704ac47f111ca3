import PushKitFreeCore

/// Standard input as text.
package enum StandardInputText {
    /// All of standard input as UTF-8 text, without the trailing line breaks a shell pipeline adds.
    /// - Parameter hook: read only what is there without waiting on a quiet pipe or a terminal
    ///   (see `FileDescriptorInput.readAvailable`), as a hook must never hang its caller.
    package static func read(trimmingTrailingNewlines: Bool, hook: Bool = false) -> String {
        var text = String(
            decoding: hook ? FileDescriptorInput.readAvailable() : FileDescriptorInput.readAll(), as: UTF8.self)
        if trimmingTrailingNewlines {
            while let last = text.last, last.isNewline { text.removeLast() }
        }
        return text
    }
}
