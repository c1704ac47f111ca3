import PushKitFreeCore

extension RegistryError {
    /// What went wrong, for an HTTP answer: without the path the error names (the server's log has
    /// `description`, path included).
    var publicSummary: String {
        switch self {
        case .corruptStateFile: "the state file is not a valid registry (not JSON, or not its shape)"
        case .io(let failure), .cannotCreate(let failure): "the state file cannot be read: \(failure.reason)"
        case .keptChanging: "the state file kept changing while it was read (another program rewrites it)"
        case .invalidInput, .unknownDevice: "the state file cannot be used"
        }
    }
}

extension EndpointError {
    /// A 500 for a registry that could not be read or changed: `action` and the summary in the
    /// answer, the whole error in the log.
    static func registry(_ action: String, _ error: RegistryError) -> EndpointError {
        .internalError("the device registry \(action): \(error.publicSummary)", logDetail: error.description)
    }
}
