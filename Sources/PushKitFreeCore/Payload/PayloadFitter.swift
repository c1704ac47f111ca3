#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fits a notification into APNs' payload size limit: 4096 bytes, 5120 for VoIP.
///
/// When only the body makes it too large, the body is shortened on a character boundary (never
/// inside a grapheme, so no broken emoji) and ends with "…". Anything else too large is refused.
package enum PayloadFitter {
    /// The ellipsis appended to a shortened body.
    package static let ellipsis = "…"

    /// The serialized payload for `content`, at most `limit` bytes.
    /// - Returns: the bytes and whether the body was shortened.
    /// - Throws: `PayloadError.tooLarge` when it cannot fit even with an empty body.
    package static func fit(
        _ content: NotificationContent, limit: Int
    ) throws(PayloadError) -> (data: Data, shortened: Bool) {
        let full = content.payload.serialized()
        if full.count <= limit { return (full, false) }
        guard let body = content.body, !body.isEmpty else {
            throw PayloadError.tooLarge(size: full.count, limit: limit, detail: "")
        }
        var trial = content
        trial.body = ellipsis
        let minimal = trial.payload.serialized()
        guard minimal.count <= limit else {
            throw PayloadError.tooLarge(
                size: full.count, limit: limit,
                detail: " even with the body shortened; shorten the title, data or other fields")
        }
        // Largest prefix (in characters) whose payload fits: binary search, each probe one serialization.
        let characters = Array(body)
        var low = 0, high = characters.count - 1, best = minimal
        while low <= high {
            let middle = (low + high) / 2
            trial.body = String(characters[0..<middle]) + ellipsis
            let data = trial.payload.serialized()
            if data.count <= limit {
                best = data
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        return (best, true)
    }
}

/// A payload that cannot be sent as given.
package enum PayloadError: SettingError, Equatable {
    case tooLarge(size: Int, limit: Int, detail: String)
    /// A setting APNs would refuse, or a combination that makes no payload.
    case invalid(SettingMessage)
    /// No content was given at all (no title, body, badge, data or payload file): a usage error
    /// (64), as for a command line missing its arguments.
    case nothingToSend(SettingMessage)
    /// A push the configuration does not allow (a critical alert without `critical_alerts`): a
    /// configuration error (78), as what must change is the config file.
    case notAllowed(SettingMessage)

    /// 64 for `nothingToSend`, 78 for `notAllowed`, else 65: an unusable payload is bad input.
    package var exitStatus: ExitStatus {
        switch self {
        case .nothingToSend: .usage
        case .notAllowed: .configuration
        case .tooLarge, .invalid: .dataError
        }
    }

    /// The message of `invalid` and `nothingToSend`; `nil` for `tooLarge`, which names no setting.
    package var settingMessage: SettingMessage? {
        switch self {
        case .invalid(let message), .nothingToSend(let message), .notAllowed(let message): message
        case .tooLarge: nil
        }
    }

    /// The size and limit for `tooLarge`, the message in the core's words for the others.
    package var description: String {
        switch self {
        case .tooLarge(let size, let limit, let detail):
            "payload is \(size) bytes, over the \(limit)-byte limit\(detail)"
        case .invalid(let message), .nothingToSend(let message), .notAllowed(let message): message.description
        }
    }
}
