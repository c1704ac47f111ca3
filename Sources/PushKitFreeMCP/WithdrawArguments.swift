import PushKitFreeCore
import PushKitFreeRegistry

/// The `withdraw` tool's arguments, checked: the collapse id of the notification to take back,
/// and whom the withdrawal goes to.
package struct WithdrawArguments: Sendable, Equatable {
    /// `id`: the collapse id the notification was sent with.
    package var id: String
    /// `device`, when one was named.
    package var device: String?
    /// `group`, when one was named.
    package var group: String?

    /// The arguments the tool takes.
    package static let known: Set<String> = ["id", "device", "group"]

    /// Reads the arguments an agent sent; unknown ones are refused.
    /// - Throws: `AgentToolError` naming the argument at fault.
    package init(_ arguments: [String: JSONValue]) throws(AgentToolError) {
        if let unknown = arguments.keys.sorted().first(where: { !Self.known.contains($0) }) {
            throw AgentToolError(
                "unknown argument \"\(unknown)\"; withdraw takes \(Self.known.sorted().joined(separator: ", "))")
        }
        let fields = RequestBodyFields(arguments)
        let id: String?
        do throws(RegistrationBodyError) {
            id = try fields.string("id")
            device = try fields.string("device")
            group = try fields.string("group")
        } catch {
            throw AgentToolError(error.description)
        }
        guard let id else {
            throw AgentToolError("\"id\" is missing: the collapse_id the notification was sent with")
        }
        guard PushSpecification.isWithdrawalID(id) else {
            throw AgentToolError(
                "\"id\" must be the collapse_id the notification was sent with: 1 to "
                    + "\(PushSpecification.withdrawIDLimit) bytes without control characters")
        }
        self.id = id
        if device != nil && group != nil {
            throw AgentToolError("give \"device\" or \"group\", not both (neither: every device)")
        }
    }

    /// The background push that takes the notification back.
    package var specification: PushSpecification { .withdrawal(of: id) }

    /// Whom the withdrawal goes to: the device, the group, or every device.
    package var audience: PushSender.Audience {
        PushSender.Audience(
            deviceIDs: device.map { [$0] } ?? [], groups: group.map { [$0] } ?? [], strictGroups: true)
    }
}
