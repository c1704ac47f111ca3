/// The XDG base directories the tools use, derived from an environment.
///
/// Config: `$XDG_CONFIG_HOME/pushkit-free` (else `~/.config/pushkit-free`).
/// State: `$XDG_STATE_HOME/pushkit-free` (else `~/.local/state/pushkit-free`).
/// Relative XDG values are ignored, as the XDG Base Directory specification requires.
package struct XDGPaths: Sendable {
    /// `$HOME`, or `/` when it is unset.
    package let home: String
    /// The config directory: `$XDG_CONFIG_HOME/pushkit-free`, else `~/.config/pushkit-free`.
    package let configDirectory: String
    /// The state directory: `$XDG_STATE_HOME/pushkit-free`, else `~/.local/state/pushkit-free`.
    package let stateDirectory: String

    /// The paths `environment` gives (`HOME`, `XDG_CONFIG_HOME`, `XDG_STATE_HOME`).
    package init(environment: [String: String]) {
        let rawHome = environment.nonEmpty("HOME") ?? "/"
        let home = rawHome.count > 1 && rawHome.hasSuffix("/") ? String(rawHome.dropLast()) : rawHome
        self.home = home
        func base(_ variable: String, fallback: String) -> String {
            if let value = environment.nonEmpty(variable), value.hasPrefix("/") { return value }
            return home == "/" ? "/" + fallback : home + "/" + fallback
        }
        configDirectory = base("XDG_CONFIG_HOME", fallback: ".config") + "/pushkit-free"
        stateDirectory = base("XDG_STATE_HOME", fallback: ".local/state") + "/pushkit-free"
    }

    /// Replaces a leading `~` or `~/` with the home directory; other paths are returned unchanged.
    package func expandingTilde(_ path: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return (home == "/" ? "" : home) + path.dropFirst() }
        return path
    }
}
