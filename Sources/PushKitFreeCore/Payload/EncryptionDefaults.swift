/// Whether sends are encrypted unless they say, and the placeholder alert an encrypted send shows
/// in clear: the config file's `encrypt`, `placeholder_title` and `placeholder_body`.
package struct EncryptionDefaults: Sendable, Equatable {
    /// The placeholder's title unless configured: "New message".
    package static let standardTitle = "New message"

    /// Whether a send that does not say (no `--encrypt`/`--no-encrypt`, no `encrypt` in a request
    /// body) is encrypted: the config file's `encrypt`, false by default.
    package var encrypt: Bool
    /// The clear alert's title; `nil` for none.
    package var placeholderTitle: String?
    /// The clear alert's body; `nil` for none.
    package var placeholderBody: String?

    /// Defaults as given: unencrypted, the title "New message" and no body unless said.
    package init(
        encrypt: Bool = false, placeholderTitle: String? = standardTitle, placeholderBody: String? = nil
    ) {
        self.encrypt = encrypt
        self.placeholderTitle = placeholderTitle
        self.placeholderBody = placeholderBody
    }

    /// The config file's members, each optional: `"encrypt": true|false`, `"placeholder_title"` and
    /// `"placeholder_body"` (a string, or null for none).
    /// - Throws: `ConfigurationError` (78) naming the member at fault, or when the placeholder would
    ///   have neither a title nor a body.
    package static func configured(in file: ConfigurationFile) throws(ConfigurationError) -> EncryptionDefaults {
        var defaults = EncryptionDefaults()
        if let encrypt = try file.bool("encrypt") { defaults.encrypt = encrypt }
        func text(_ key: String) throws(ConfigurationError) -> String?? {
            guard let member = file.values[key] else { return .none }
            if member == .null { return .some(nil) }
            guard let string = member.stringValue else {
                throw ConfigurationError("\(key) in \(file.path) must be a string or null, not \(member.typeName)")
            }
            return .some(string.isEmpty ? nil : string)
        }
        if let title = try text("placeholder_title") { defaults.placeholderTitle = title }
        if let body = try text("placeholder_body") { defaults.placeholderBody = body }
        if defaults.placeholderTitle == nil, defaults.placeholderBody == nil {
            throw ConfigurationError(
                "placeholder_title and placeholder_body in \(file.path) are both empty; an encrypted "
                    + "notification's placeholder alert needs one of them")
        }
        return defaults
    }

    /// The config file's keys read here.
    package static let configKeys: Set<String> = ["encrypt", "placeholder_title", "placeholder_body"]
}
