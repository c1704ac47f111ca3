extension String {
    /// Without leading and trailing whitespace and newlines (FoundationEssentials has no
    /// `trimmingCharacters(in:)`).
    package var trimmingWhitespace: String {
        let characters = drop(while: \.isWhitespace)
        return String(characters.reversed().drop(while: \.isWhitespace).reversed())
    }
}
