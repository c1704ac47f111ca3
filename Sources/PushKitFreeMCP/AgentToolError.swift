/// A call an agent made that the tools refuse: unknown tool, device or group, bad arguments,
/// nothing to send. Answered as an MCP tool error (`isError`), never thrown to the transport.
package struct AgentToolError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What is wrong and what to do instead, naming the argument at fault.
    package let description: String

    /// A refusal that says `description`.
    package init(_ description: String) {
        self.description = description
    }
}
