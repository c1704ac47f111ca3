import PushKitFreeCore
import Synchronization

/// What every tool says when it reads a registry holding records it cannot use
/// (`UnreadableDevice`): one warning per record, once per process, however often the registry is
/// read again (a server reads it for every batch). By default on standard error after the
/// program's name (`register-apns: warning: device "x" in ... cannot be used: ...`); a program
/// that words its log otherwise (`register-apns serve`) installs its own handler at start.
///
/// The stores call it as they read: the state file (`StateFileRegistry`) and the PostgreSQL
/// registry (`PostgresSession`), so no tool can read such a record without saying so.
package enum RegistryWarnings {
    private struct State: Sendable {
        var handler: (@Sendable (String) -> Void)?
        var given: Set<String> = []
    }

    private static let state = Mutex(State())

    /// Sends every warning from now on to `handler` instead of standard error.
    package static func setHandler(_ handler: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.handler = handler }
    }

    /// Warns about each of `devices`, read from the registry at `location`, unless it was already
    /// (the same record: the same id and bytes).
    static func warn(about devices: [UnreadableDevice], in location: String) {
        guard !devices.isEmpty else { return }
        let (handler, new) = state.withLock { state in
            // By the record's bytes, not its problem, whose line and column move when the file is rewritten.
            let key = { (device: UnreadableDevice) in
                "\(location)\u{0}\(device.id)\u{0}" + String(decoding: device.storedJSON, as: UTF8.self)
            }
            return (state.handler, devices.filter { state.given.insert(key($0)).inserted })
        }
        for device in new {
            let warning = device.warning(location: location)
            if let handler {
                handler(warning)
            } else {
                StandardStreams.writeError("\(programName): warning: \(warning)\n")
            }
        }
    }

    /// The name this program was called by (`register-apns`, `send-push`, ...).
    private static var programName: String {
        let path = CommandLine.arguments.first ?? "pushkit-free"
        return String(path.split(separator: "/").last ?? Substring(path))
    }
}
