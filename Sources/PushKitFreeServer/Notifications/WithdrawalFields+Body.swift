import PushKitFreeCore
import PushKitFreeRegistry

extension WithdrawalFields {
    /// The body of `POST /v1/withdraw`, `{"id", "device"? | "group"?}`: unknown members are
    /// refused, so a misspelt one never goes unnoticed.
    /// - Throws: `EndpointError` 400 naming the member at fault.
    package init(body json: JSONValue) throws(EndpointError) {
        guard let object = json.objectValue else {
            throw .badRequest("expected a JSON object with \"id\", not \(json.typeName)")
        }
        if let unknown = Self.unknownMember(in: object.keys) {
            throw .badRequest(
                "unknown member \"\(TerminalText.field(unknown))\"; a withdrawal takes "
                    + Self.members.sorted().joined(separator: ", "))
        }
        do throws(RegistrationBodyError) {
            try self.init(object)
        } catch {
            throw EndpointError(error)
        }
    }
}
