#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

extension FuzzTarget {
    /// The config file as every tool reads it: parsed, its settings resolved (no flags, a bare
    /// environment), and its notification policy read, time zone names checked against the system's
    /// tz database as the tools check them.
    static func checkConfiguration(_ input: [UInt8]) throws(FuzzViolation) {
        let path = "/fuzz/config.json"
        let resolved: (file: ConfigurationFile, configuration: Configuration)
        do throws(ConfigurationError) {
            let file = try ConfigurationFile(path: path, contents: Data(input))
            let configuration = try Configuration(
                flags: ConfigurationFlags(), environment: ["HOME": "/fuzz/home"], file: file,
                fileSource: .flag("--config"))
            _ = try NotificationPolicy(file: file, quietPolicy: nil, minimumInterval: nil) {
                (name: String?) throws(ConfigurationError) -> any LocalTimeZone in
                try SystemTimeZone(identifier: name)
            }
            resolved = (file, configuration)
        } catch {
            try FuzzViolation.requireMessage(error.message, from: "the config file reader")
            try FuzzViolation.require(
                error.exitStatus == .configuration,
                "a bad config file exits \(error.exitStatus.rawValue), not 78: \(error.message)")
            return
        }
        for warning in resolved.file.warnings {
            try FuzzViolation.requireMessage(warning, from: "the config file's warnings")
        }
        try FuzzViolation.require(
            !resolved.configuration.stateFile.value.isEmpty, "the config file resolved to an empty state file path")
    }
}
