import MCP
import PushKitFreeCore

extension JSONValue {
    /// An MCP value as the core's JSON: integers become numbers, data its base64 text.
    init(_ value: MCP.Value) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .int(let int): self = .number(Double(int))
        case .double(let double): self = .number(double)
        case .string(let string): self = .string(string)
        case .data(let mimeType, let data): self = .string(MCP.Value.data(mimeType: mimeType, data).description)
        case .array(let array): self = .array(array.map { JSONValue($0) })
        case .object(let object): self = .object(object.mapValues { JSONValue($0) })
        }
    }
}

extension MCP.Value {
    /// The core's JSON as an MCP value: a whole number becomes an integer, so it matches
    /// `"type": "integer"` in an output schema.
    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .number(let number):
            if let int = json.integerValue { self = .int(int) } else { self = .double(number) }
        case .string(let string): self = .string(string)
        case .array(let array): self = .array(array.map { MCP.Value(json: $0) })
        case .object(let object): self = .object(object.mapValues { MCP.Value(json: $0) })
        }
    }
}
