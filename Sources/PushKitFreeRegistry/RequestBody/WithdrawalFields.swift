import PushKitFreeCore

/// A withdrawal's members, as `POST /v1/withdraw`'s body and the agent tool `withdraw`'s arguments
/// give them, checked: `id`, the collapse id the notification to take back was sent with, and
/// whom it goes to, `device` or `group` (neither: every device). Each front end refuses members it
/// does not know before reading these, and words the errors in its own shape.
package struct WithdrawalFields: Sendable, Equatable {
    /// The collapse id of the notifications to take back.
    package var id: String
    /// `device`, when one was named.
    package var device: String?
    /// `group`, when one was named.
    package var group: String?

    /// The members a withdrawal takes.
    package static let members: Set<String> = ["id", "device", "group"]

    /// Reads the members of `object`.
    /// - Throws: `RegistrationBodyError` naming the member at fault: a missing or unusable `id`,
    ///   a member that is not text, both `device` and `group`.
    package init(_ object: [String: JSONValue]) throws(RegistrationBodyError) {
        let fields = RequestBodyFields(object)
        let id = try fields.string("id")
        device = try fields.string("device")
        group = try fields.string("group")
        guard let id else { throw .invalidBody("\"id\" is missing: the collapse id the notification was sent with") }
        guard PushSpecification.isWithdrawalID(id) else {
            throw .invalidBody(
                "\"id\" must be the collapse id the notification was sent with: 1 to "
                    + "\(PushSpecification.withdrawIDLimit) bytes without control characters")
        }
        self.id = id
        if device != nil && group != nil {
            throw .invalidBody("give \"device\" or \"group\", not both (neither: every device)")
        }
    }

    /// The background push that takes the notification back.
    package var specification: PushSpecification { .withdrawal(of: id) }

    /// Whom the withdrawal goes to: the device, the group, or every device.
    package var audience: PushSender.Audience {
        PushSender.Audience(
            deviceIDs: device.map { [$0] } ?? [], groups: group.map { [$0] } ?? [], strictGroups: true)
    }

    /// The first member of `names` a withdrawal does not take, in sorted order.
    package static func unknownMember(in names: some Collection<String>) -> String? {
        names.sorted().first { !members.contains($0) }
    }
}
