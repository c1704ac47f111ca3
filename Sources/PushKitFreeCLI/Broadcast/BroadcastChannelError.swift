import PushKitFreeCore
/// What went wrong with a broadcast channel or the channels file, each with its exit status.
package enum BroadcastChannelError: PushKitError {
    /// A name the user gave cannot name a channel (65).
    case invalidName(String)
    /// The name is recorded already, for channel `id` (65).
    case nameTaken(String, id: String, path: String)
    /// No recorded channel has this name, and it is not a channel id either (65).
    case unknownChannel(String, path: String)
    /// The channels file is not JSON or not a channels file (65); it is never overwritten.
    case corruptStore(path: String, detail: String)
    /// The channels file, its directory or lock cannot be created (73).
    case cannotCreate(FileSystemError)
    /// Reading, locking or replacing the channels file failed (74).
    case io(FileSystemError)
    /// APNs created the channel but it could not be recorded (73/74 for the file, 65 when another
    /// process took the name meanwhile): the message carries the id so it is not lost.
    case notRecorded(name: String, id: String, environment: APNsEnvironment, cause: String, status: ExitStatus)
    /// APNs refused a channel management request: 78 for authentication and a disabled feature,
    /// 75 for 429/5xx, 65 otherwise.
    case refused(APNsRejection, action: String, requestID: String?)
    /// No answer from the channel management host: 69 for connect and TLS failures, 75 otherwise.
    case noAnswer(TransportFailure, action: String, host: String)

    /// The status each case's summary gives.
    package var exitStatus: ExitStatus {
        switch self {
        case .invalidName, .nameTaken, .unknownChannel, .corruptStore: .dataError
        case .cannotCreate: .cannotCreate
        case .io: .ioError
        case .notRecorded(_, _, _, _, let status): status
        case .refused(let rejection, _, _):
            if rejection.status == 403 || rejection.reason == .featureNotEnabled {
                .configuration
            } else if rejection.status == 429 || rejection.status >= 500 {
                .temporaryFailure
            } else {
                .dataError
            }
        case .noAnswer(let failure, _, _):
            failure.kind == .connect || failure.kind == .tls ? .unavailable : .temporaryFailure
        }
    }

    /// The message: what failed, the name or id concerned, and what to do about it.
    package var description: String {
        switch self {
        case .invalidName(let message):
            message
        case .nameTaken(let name, let id, let path):
            "a channel named \"\(TerminalText.field(name))\" exists already (id \(id), in \(path)); choose another name"
        case .unknownChannel(let name, let path):
            "no channel named \"\(TerminalText.field(name))\" in \(path), and it is not a channel id "
                + "(base64, as APNs issues them); see register-apns channel list"
        case .corruptStore(let path, let detail):
            "channels file \(path) is corrupt: \(detail); it was left unchanged (fix it or move it aside)"
        case .cannotCreate(let error), .io(let error):
            error.description
        case .notRecorded(let name, let id, let environment, let cause, _):
            "APNs created channel \(id) (\(environment.rawValue)) but it could not be recorded as "
                + "\"\(TerminalText.field(name))\": \(cause); note the id, or delete it with register-apns channel delete \(id)"
        case .refused(let rejection, let action, let requestID):
            "APNs refused to \(action): \(rejection.status) \(TerminalText.escaped(rejection.reason.rawValue))"
                + (Self.explanation(of: rejection.reason).map { " (\($0))" } ?? "")
                + (requestID.map { " [apns-request-id \($0)]" } ?? "")
        case .noAnswer(let failure, let action, let host):
            "cannot \(action): no answer from \(host): \(failure.message)"
        }
    }

    /// What a channel API reason means for the user, for the reasons that need saying.
    package static func explanation(of reason: APNsReason) -> String? {
        switch reason {
        case .channelNotRegistered:
            "APNs has no such channel in this environment: it was deleted, or it belongs to the other environment"
        case .cannotCreateChannelConfig:
            "the app has as many channels as APNs allows, 10,000 per environment; "
                + "delete the ones no longer used (register-apns channel list --remote)"
        case .featureNotEnabled:
            "broadcast is not enabled for this app: turn on the Broadcast capability for the app id "
                + "in the Apple developer account"
        case .badChannelID:
            "the channel id is not base64 as APNs issues it, or too long"
        case .missingChannelID:
            "the request carried no apns-channel-id"
        case .invalidPushType, .missingPushType:
            "channels carry Live Activity pushes only (push type liveactivity)"
        case .expiredProviderToken, .invalidProviderToken, .missingProviderToken:
            "the provider token was refused; check the key id, team id and key (apns-jwt check)"
        default:
            nil
        }
    }
}
