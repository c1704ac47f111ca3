/// Where a resolved setting came from, so `apns-jwt check` and error messages can name it.
package enum SettingSource: Sendable, Equatable, CustomStringConvertible {
    /// A command-line flag, e.g. `--key-path`.
    case flag(String)
    /// An environment variable, e.g. `APNS_KEY_PATH`.
    case environment(String)
    /// A key of the config file at `path`.
    case configFile(key: String, path: String)
    /// The built-in default.
    case defaultValue
    /// Derived from another setting by a stated rule; `rule` says which (e.g. a replaced design's
    /// token map beside its config file, `StateFileBesideConfig`).
    case derived(rule: String)

    /// Whether the value was derived by a rule (`derived`).
    package var isDerived: Bool {
        if case .derived = self { return true }
        return false
    }

    /// Short label for reports: `flag`, `env`, `file` or `default`.
    package var kind: String {
        switch self {
        case .flag: "flag"
        case .environment: "env"
        case .configFile: "file"
        case .defaultValue: "default"
        case .derived: "file"
        }
    }

    /// The source as messages name it: the flag or variable, `key in path`, `the default`, or the rule.
    package var description: String {
        switch self {
        case .flag(let name): name
        case .environment(let name): name
        case .configFile(let key, let path): "\(key) in \(path)"
        case .defaultValue: "the default"
        case .derived(let rule): rule
        }
    }
}

/// A setting's value together with where it came from.
package struct Setting<Value: Sendable>: Sendable {
    /// The resolved value.
    package var value: Value
    /// Where `value` came from.
    package var source: SettingSource

    /// `value`, taken from `source`.
    package init(_ value: Value, from source: SettingSource) {
        self.value = value
        self.source = source
    }
}

extension Setting: Equatable where Value: Equatable {}
