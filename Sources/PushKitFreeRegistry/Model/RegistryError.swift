import PushKitFreeCore
/// What went wrong with the device registry (the state file or the PostgreSQL database), each with its exit status.
package enum RegistryError: PushKitError {
    /// The state file is not valid JSON or not a registry (exit 65); it is never overwritten.
    /// `detail` says where: "line 3, column 17: ...".
    case corruptStateFile(path: String, detail: String)
    /// A token, device id, registration body or file to import is not usable (exit 65).
    case invalidInput(String)
    /// No device has this id or token (exit 65).
    case unknownDevice(String, path: String)
    /// The change would make one name both a device id and a group (exit 65): a name is one or the
    /// other, so that a name a sender gives (an ntfy topic, a Bark key) reaches whom it always did.
    /// Nothing was changed. `message` names the name and what holds it.
    case nameTaken(String)
    /// The device's record in the registry cannot be read (`UnreadableDevice`), and the change
    /// would rewrite it: registering the device again, importing it, writing the registry as a flat
    /// map (exit 65). Nothing was changed.
    case unreadableRecord(UnreadableDevice)
    /// The state file, its directory, lock or temporary file cannot be created (exit 73).
    case cannotCreate(FileSystemError)
    /// Reading, locking or replacing the state file failed (exit 74).
    case io(FileSystemError)
    /// The state file's directory is writable by other users or belongs to one (exit 78): nothing
    /// is read from or written there until it is made private.
    case unsafeLocation(FileSystemError)
    /// Another program (one that takes no lock) rewrote the state file every time this one was about
    /// to replace it; it was left as that program wrote it (exit 75).
    case keptChanging(path: String)
    /// The state file reads empty, but held `heldDevices` devices when these tools last wrote it:
    /// another program is most likely rewriting it in place (`slow-command > devices.json`), and
    /// writing now would throw its contents away. Nothing was written (exit 75).
    case emptiedInPlace(path: String, heldDevices: Int)
    /// The PostgreSQL registry at `location` (the URL, password masked) could not be reached, or the
    /// connection was lost, for as long as the tools try again (exit 75). `detail` is libpq's message.
    case databaseUnavailable(location: String, detail: String)
    /// The PostgreSQL registry cannot be used as configured: libpq is not installed, the URL is not
    /// one, authentication failed, the database or role does not exist (exit 78).
    case databaseMisconfigured(location: String, detail: String)
    /// The PostgreSQL server refused the work: permissions, a schema newer than this release, a
    /// constraint (exit 69).
    case databaseFailed(location: String, detail: String)

    /// 65, 73, 74 or 75, as each case says.
    package var exitStatus: ExitStatus {
        switch self {
        case .corruptStateFile, .invalidInput, .unknownDevice, .nameTaken, .unreadableRecord: .dataError
        case .cannotCreate: .cannotCreate
        case .io: .ioError
        case .keptChanging, .emptiedInPlace, .databaseUnavailable: .temporaryFailure
        case .databaseMisconfigured, .unsafeLocation: .configuration
        case .databaseFailed: .unavailable
        }
    }

    /// One line naming the file, device or input at fault.
    package var description: String {
        switch self {
        case .corruptStateFile(let path, let detail):
            "state file \(path) is corrupt: \(detail); it was left unchanged (fix it or move it aside)"
        case .invalidInput(let message), .nameTaken(let message):
            message
        case .unreadableRecord(let device):
            "device \"\(device.id)\" has a record that cannot be read (\(device.problem)), and this change would "
                + "rewrite it; nothing was changed: fix the record by hand, or remove it (register-apns remove)"
        case .unknownDevice(let idOrToken, let path):
            "no device with id or token \"\(idOrToken)\" in \(path)"
        case .cannotCreate(let error), .io(let error), .unsafeLocation(let error):
            error.description
        case .keptChanging(let path):
            "state file \(path) was rewritten by another program each time this one was about to replace it; "
                + "it was left as that program wrote it (try again)"
        case .emptiedInPlace(let path, let held):
            "state file \(path) is empty, but held \(held) device\(held == 1 ? "" : "s") when last written: another "
                + "program may be rewriting it in place; nothing was written (try again when it is done, "
                + "or remove the file to start an empty registry)"
        case .databaseUnavailable(let location, let detail):
            "the device registry \(location) cannot be reached: \(detail) (try again)"
        case .databaseMisconfigured(let location, let detail):
            "the device registry \(location) cannot be used: \(detail)"
        case .databaseFailed(let location, let detail):
            "the device registry \(location) refused the change: \(detail); nothing was changed"
        }
    }
}
