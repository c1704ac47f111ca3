import PushKitFreeCore
import PushKitFreeRegistry

/// The body of `POST /v1/withdraw`, checked: `{"id", "device"? | "group"?}`. `id` is the collapse
/// id the notification to take back was sent with. Unknown members are refused, so a misspelt one
/// never goes unnoticed.
package struct WithdrawRequest: Sendable, Equatable {
    /// The collapse id of the notifications to take back.
    package var id: String
    /// `device`, when one was named.
    package var device: String?
    /// `group`, when one was named.
    package var group: String?

    /// The members the body takes.
    package static let members: Set<String> = ["id", "device", "group"]

    /// - Throws: `EndpointError` 400 naming the member at fault.
    package init(_ json: JSONValue) throws(EndpointError) {
        guard let object = json.objectValue else {
            throw .badRequest("expected a JSON object with \"id\", not \(json.typeName)")
        }
        if let unknown = object.keys.sorted().first(where: { !Self.members.contains($0) }) {
            throw .badRequest(
                "unknown member \"\(TerminalText.field(unknown))\"; a withdrawal takes "
                    + Self.members.sorted().joined(separator: ", "))
        }
        let fields = RequestBodyFields(object)
        let id: String?
        do throws(RegistrationBodyError) {
            id = try fields.string("id")
            device = try fields.string("device")
            group = try fields.string("group")
        } catch {
            throw EndpointError(error)
        }
        guard let id else {
            throw .badRequest("a withdrawal needs \"id\", the collapse id the notification was sent with")
        }
        guard PushSpecification.isWithdrawalID(id) else {
            throw .badRequest(
                "\"id\" must be the collapse id the notification was sent with: 1 to "
                    + "\(PushSpecification.withdrawIDLimit) bytes without control characters")
        }
        self.id = id
        if device != nil && group != nil { throw .badRequest("give \"device\" or \"group\", not both") }
    }

    /// The background push that takes the notification back.
    package var specification: PushSpecification { .withdrawal(of: id) }
}
