/// The files of the Sven design (`../shared/seeds/003_…`), whose old scripts may still share them
/// with these tools: its server's token map `~/dispatch/state/sven-apns-tokens.json`, a flat map
/// `{"<device_token>": "<apns_token>"}` its old `send-push` script iterates, and its config
/// `~/dispatch/state/sven-push-config.json`, which names no token map (the scripts hard-code it).
///
/// Two rules, stated once here and in docs/migrating/sven.md:
/// - a config file named `sven-push-config.json` without `state_file` reads its devices from the
///   `sven-apns-tokens.json` beside it;
/// - a state file named `sven-apns-tokens.json` that does not exist yet is created as a flat map
///   (its details in the sidecar), so the old script never iterates `version` and `devices`.
///
/// Retirement: once the old server and script are gone, `register-apns convert` turns the file
/// into version 1 (kept so afterwards), and the config may name any `state_file`.
package enum SvenFiles {
    /// The design's config file's name.
    package static let configName = "sven-push-config.json"
    /// The design's token map's name.
    package static let tokenMapName = "sven-apns-tokens.json"

    /// Where the design keeps its token map, for `home`.
    package static func tokenMap(home: String) -> String {
        (home == "/" ? "" : home) + "/dispatch/state/" + tokenMapName
    }

    /// The token map beside the config file at `configPath`, when that is the design's config file.
    package static func tokenMap(besideConfig configPath: String) -> String? {
        guard PosixFile.fileName(of: configPath) == configName else { return nil }
        let directory = PosixFile.parentDirectory(of: configPath)
        return (directory.isEmpty ? "" : directory + "/") + tokenMapName
    }

    /// Whether a state file at `path` that does not exist yet is created as a flat map.
    package static func createsFlatMap(_ path: String) -> Bool {
        PosixFile.fileName(of: path) == tokenMapName
    }
}
