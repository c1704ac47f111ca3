import PushKitFreeCore
import PushKitFreeRegistry

extension RegistryError {
    /// What went wrong, for an HTTP answer: without the path the error names (the server's log has
    /// `description`, path included).
    var publicSummary: String {
        switch self {
        case .corruptStateFile: "the state file is not a valid registry (not JSON, or not its shape)"
        case .io(let failure), .cannotCreate(let failure):
            "\(failure.action) \(Self.role(of: failure.path)): \(failure.reason)"
        case .unsafeLocation: "the state file's directory is writable by other users (see the server's log)"
        case .keptChanging: "the state file kept changing while it was read (another program rewrites it)"
        case .emptiedInPlace: "the state file reads empty while another program rewrites it"
        case .invalidInput, .unknownDevice: "the state file cannot be used"
        case .nameTaken(let message): message
        case .unreadableRecord: "a device's record cannot be read"
        case .databaseUnavailable: "the registry's database cannot be reached"
        case .databaseMisconfigured: "the registry's database cannot be used as configured"
        case .databaseFailed: "the registry's database refused the change"
        }
    }
}

extension RegistryError {
    /// What the file at `path` is to the registry, for an answer that must not show paths.
    static func role(of path: String) -> String {
        let name = PosixFile.fileName(of: path)
        if name.hasSuffix(".journal") { return "the state file's journal" }
        if name.hasSuffix(".lock") { return "the state file's lock" }
        if name.hasSuffix(".meta.json") { return "the state file's sidecar" }
        if name.contains(PosixFile.temporarySuffix) { return "a temporary file beside the state file" }
        return "the state file"
    }
}

extension EndpointError {
    /// A 500 for a registry that could not be read or changed: `action` and the summary in the
    /// answer, the whole error in the log. A database that cannot be reached (it is restarting, or
    /// the network is down) is a 503 with `Retry-After`: the request can be sent again as it is.
    static func registry(_ action: String, _ error: RegistryError) -> EndpointError {
        let message = "the device registry \(action): \(error.publicSummary)"
        switch error {
        case .databaseUnavailable:
            return EndpointError(
                status: 503, message, headers: ["Retry-After": String(databaseRetryAfter)], logDetail: error.description
            )
        case .keptChanging, .emptiedInPlace:
            return EndpointError(
                status: 503, message, headers: ["Retry-After": String(rewriteRetryAfter)], logDetail: error.description)
        default:
            return .internalError(message, logDetail: error.description)
        }
    }

    /// The seconds a client is asked to wait when the registry's database cannot be reached.
    static let databaseRetryAfter = 5
    /// The seconds a client is asked to wait while another program rewrites the state file.
    static let rewriteRetryAfter = 1
}
