import PushKitFreeCore
/// The files of the Sven design (`../shared/seeds/003_…`), whose old scripts may still share them
/// with these tools: its server's token map `~/dispatch/state/sven-apns-tokens.json`, a flat map
/// `{"<device_token>": "<apns_token>"}` its old `send-push` script iterates, and its config
/// `~/dispatch/state/sven-push-config.json`, which names no token map (the scripts hard-code it).
///
/// The one adapter for the design's files; its rules, stated once here and in docs/migrating/sven.md:
/// - config naming: a config file named `sven-push-config.json` without `state_file` reads its
///   devices from the `sven-apns-tokens.json` beside it (`stateFile(besideConfig:)`, which the
///   command lines hand to `Configuration.resolve`, the configuration's only hook for it);
/// - flat map: a state file named `sven-apns-tokens.json` that does not exist yet is created as a
///   flat map (`createsFlatMap`), so the old script never iterates `version` and `devices`;
/// - sidecar: the flat map's details (groups, environments, names) live in the sidecar beside it
///   (`StateFileRegistry+FlatMap`);
/// - doctor: `apns-jwt check` warns when the design's token map exists under the home directory
///   but the configuration reads another registry (`tokenMap(home:)`).
///
/// Retirement: once the old server and script are gone, `register-apns convert` turns the file
/// into version 1 (kept so afterwards), and the config may name any `state_file`; then this file,
/// its uses (the hook in `ToolSupport` and the doctor, the flat-map branch of the state file's
/// store) and docs/migrating/sven.md go as a unit.
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

    /// The token map beside the config file at `configPath`, as the state file's setting, when that
    /// is the design's config file (a `StateFileBesideConfig` for `Configuration.resolve`).
    package static func stateFile(besideConfig configPath: String) -> Setting<String>? {
        tokenMap(besideConfig: configPath).map {
            Setting($0, from: .derived(rule: "the Sven token map beside \(configPath)"))
        }
    }

    /// Whether a state file at `path` that does not exist yet is created as a flat map.
    package static func createsFlatMap(_ path: String) -> Bool {
        PosixFile.fileName(of: path) == tokenMapName
    }
}
