/// Everything needed to sign provider tokens: the key and the two identifiers, validated.
///
/// The key may still be unparsed (see `load(from:)`): `signingKey()` parses it when a token must be
/// signed.
package struct ProviderCredentials: Sendable {
    /// The 10-character key id from the developer account (the `kid` header).
    package let keyID: String
    /// The 10-character team id (the `iss` claim).
    package let teamID: String
    /// The key's fingerprint (`ProviderKey.fingerprint`).
    package let keyFingerprint: String
    private let key: Key

    private enum Key: Sendable {
        case parsed(ProviderKey)
        /// PEM text known to parse: a token signed with it is in the token cache.
        case unparsed(pem: String, origin: String)
    }

    /// Credentials with a key already parsed, e.g. one made in memory.
    package init(key: ProviderKey, keyID: String, teamID: String) {
        self.init(key: .parsed(key), fingerprint: key.fingerprint, keyID: keyID, teamID: teamID)
    }

    private init(key: Key, fingerprint: String, keyID: String, teamID: String) {
        self.key = key
        self.keyFingerprint = fingerprint
        self.keyID = keyID
        self.teamID = teamID
    }

    /// The cache key: team id, key id and key fingerprint, so a rotated key never reuses an old token.
    package var cacheKey: String { "\(teamID).\(keyID).\(keyFingerprint)" }

    /// The key to sign with, parsed now when `load(from:)` left it as text.
    /// - Throws: `ProviderKeyError` (78) when the text is not a P-256 key after all.
    package func signingKey() throws(ProviderKeyError) -> ProviderKey {
        switch key {
        case .parsed(let key): key
        case .unparsed(let pem, let origin): try ProviderKey(pem: pem, origin: origin)
        }
    }

    /// A warning when the configured `.p8` can be read by group or others (`chmod 600` fixes it);
    /// the tools print it and go on, since the key still works.
    package static func keyPermissionWarning(_ configuration: Configuration) -> String? {
        guard let keyPath = configuration.keyPath, let mode = PosixFile.permissionsOpenToOthers(of: keyPath.value)
        else { return nil }
        return
            "the key file \(keyPath.value) has permissions \(String(mode, radix: 8)), which let other users read the key; run chmod 600 \(keyPath.value)"
    }

    /// Loads the key and checks the identifiers named by `configuration`.
    ///
    /// Parsing the key (about a fifth of a warm `apns-jwt` run) is skipped when the token cache
    /// already holds a token for this key file's fingerprint: that token was signed with this very
    /// key, so the key parsed then and parses now. Every other case parses here, so a bad key is
    /// reported before anything is sent, as before.
    /// - Throws: `ProviderKeyError` (66 for a missing key file) or `ConfigurationError` (78).
    package static func load(from configuration: Configuration) throws -> ProviderCredentials {
        if let missing = ConfigurationError.missingSettings(configuration, needsTopic: false) { throw missing }
        let (keyID, teamID) = try identifiers(from: configuration)
        guard let keyPath = configuration.keyPath else {
            throw ConfigurationError(
                "no provider key: set --key-path, APNS_KEY_PATH or key_path in \(configuration.file.path)")
        }
        let origin = ProviderKey.origin(path: keyPath.value, source: keyPath.source)
        let text = try ProviderKey.readPEM(path: keyPath.value, origin: origin)
        if let fingerprint = ProviderKey.fingerprint(pem: text) {
            let unparsed = ProviderCredentials(
                key: .unparsed(pem: text, origin: origin), fingerprint: fingerprint, keyID: keyID, teamID: teamID)
            if ProviderTokenCache(path: configuration.tokenCachePath).holdsToken(for: unparsed) { return unparsed }
        }
        return ProviderCredentials(key: try ProviderKey(pem: text, origin: origin), keyID: keyID, teamID: teamID)
    }

    /// Returns the problem with a key id or team id, or `nil` when it is 10 ASCII letters or digits.
    package static func identifierProblem(_ value: String, name: String) -> String? {
        if value.count != 10 {
            return
                "\(name) \"\(value)\" has \(value.count) character\(value.count == 1 ? "" : "s"); Apple's \(name)s have 10"
        }
        if let bad = value.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber)) }) {
            return "\(name) \"\(value)\" contains \"\(bad)\"; Apple's \(name)s are letters and digits"
        }
        return nil
    }

    /// The configured key id and team id, checked.
    /// - Throws: `ConfigurationError` (78) naming the flag, variable or key to set or fix.
    package static func identifiers(
        from configuration: Configuration
    ) throws(ConfigurationError) -> (keyID: String, teamID: String) {
        (
            try validatedIdentifier(
                configuration.keyID, name: "key id", flag: "--key-id", variable: "APNS_KEY_ID", key: "key_id"),
            try validatedIdentifier(
                configuration.teamID, name: "team id", flag: "--team-id", variable: "APNS_TEAM_ID", key: "team_id")
        )
    }

    private static func validatedIdentifier(
        _ setting: Setting<String>?, name: String, flag: String, variable: String, key: String
    ) throws(ConfigurationError) -> String {
        guard let setting else {
            throw ConfigurationError("no \(name): set \(flag), \(variable) or \(key) in the config file")
        }
        if let problem = identifierProblem(setting.value, name: name) {
            throw ConfigurationError("\(problem) (from \(setting.source))")
        }
        return setting.value
    }
}
