import ArgumentParser

/// One button of a question: `--choice ID=TITLE`. The id is what the answer names (and what
/// `ask-push` prints); the title is what the button says.
package struct QuestionChoice: Sendable, Equatable, ExpressibleByArgument {
    /// 1 to 64 characters of `A-Z a-z 0-9 _ . -`.
    package var id: String
    /// The button's text, 1 to 64 characters.
    package var title: String
    /// Shown as destructive (red) on the phone.
    package var destructive = false
    /// The phone asks to be unlocked (Face ID, passcode) before this choice counts.
    package var authenticationRequired = false

    /// The longest id and title, in characters.
    package static let longest = 64

    /// A choice with no marks.
    package init(id: String, title: String) {
        self.id = id
        self.title = title
    }

    /// `ID=TITLE`, split at the first `=`; `nil` (a usage error) without one.
    package init?(argument: String) {
        guard let equals = argument.firstIndex(of: "=") else { return nil }
        self.init(id: String(argument[..<equals]), title: String(argument[argument.index(after: equals)...]))
    }

    /// The shape argument parser names in `--help`.
    package static var defaultCompletionKind: CompletionKind { .default }

    /// Whether `id` has a choice id's shape.
    package static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= longest
            && id.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "A"..."Z", "a"..."z", "0"..."9", "_", ".", "-": true
                default: false
                }
            }
    }
}
