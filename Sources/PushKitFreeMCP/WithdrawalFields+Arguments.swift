import PushKitFreeCore
import PushKitFreeRegistry

extension WithdrawalFields {
    /// The `withdraw` tool's arguments; unknown ones are refused.
    /// - Throws: `AgentToolError` naming the argument at fault.
    package init(arguments: [String: JSONValue]) throws(AgentToolError) {
        if let unknown = Self.unknownMember(in: arguments.keys) {
            throw AgentToolError(
                "unknown argument \"\(unknown)\"; withdraw takes \(Self.members.sorted().joined(separator: ", "))")
        }
        do throws(RegistrationBodyError) {
            try self.init(arguments)
        } catch {
            throw AgentToolError(error.description)
        }
    }
}
