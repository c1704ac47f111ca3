#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a `DeviceRecord` is read from and written to JSON: the state file's device entries and the
/// lines of `register-apns list --json`.
extension DeviceRecord {
    /// The member names this version knows, in the order they are written.
    static let knownFields: [String] = [
        "token", "environment", "name", "model", "os_version", "app_version", "groups",
        "registered_at", "last_seen_at", "last_delivered_at",
    ]

    /// The member that carries the device id in JSON Lines (`list --json`, `import`).
    static let deviceIDField = "device_id"

    /// Reads one device object.
    ///
    /// - Parameter deviceID: the id when the caller knows it (the key in the state file's `devices`);
    ///   `nil` to take it from a `device_id` member (a line of `list --json`).
    /// - Throws: `JSONSyntaxError` for bad JSON, a member of the wrong type, a bad token or timestamp.
    static func read(from scanner: inout JSONScanner, deviceID: String?) throws(JSONSyntaxError) -> (id: String, record: DeviceRecord) {
        scanner.skipWhitespace()
        let start = scanner.offset
        var id = deviceID
        var token: DeviceToken?
        var environment: APNsEnvironment?
        var name: String?, model: String?, osVersion: String?, appVersion: String?
        var groups: [String] = []
        var registeredAt: Date?, lastSeenAt: Date?, lastDeliveredAt: Date?
        var otherFields: [String: JSONValue] = [:]
        func subject() -> String { id.map { "device \"\($0)\"" } ?? "device" }

        guard try scanner.peekKind() == .object else {
            throw scanner.failure("\(subject()) must be an object, not \(try scanner.peekKind().name)")
        }
        try scanner.forEachMember { (field: String, scanner: inout JSONScanner) throws(JSONSyntaxError) in
            scanner.skipWhitespace()
            let position = scanner.offset
            func wrongType(_ expected: String) throws(JSONSyntaxError) -> JSONSyntaxError {
                scanner.failure("\(subject()): \"\(field)\" must be \(expected), not \(try scanner.peekKind().name)", at: position)
            }
            func optionalString() throws(JSONSyntaxError) -> String? {
                if scanner.consumeNull() { return nil }
                guard try scanner.peekKind() == .string else { throw try wrongType("a string or null") }
                return try scanner.readString()
            }
            func optionalDate() throws(JSONSyntaxError) -> Date? {
                guard let text = try optionalString() else { return nil }
                guard let date = ISO8601Timestamp.parse(text) else {
                    throw scanner.failure("\(subject()): \"\(field)\" is not an ISO 8601 timestamp: \"\(text)\"", at: position)
                }
                return date
            }
            switch field {
            case "token":
                guard try scanner.peekKind() == .string else { throw try wrongType("a string") }
                let text = try scanner.readString()
                do throws(DeviceTokenError) {
                    token = try DeviceToken(validating: text)
                } catch {
                    throw scanner.failure("\(subject()): \(error.message)", at: position)
                }
            case "environment":
                environment = nil
                guard let text = try optionalString() else { break }
                guard let value = APNsEnvironment(userText: text) else {
                    throw scanner.failure("\(subject()): \"environment\" must be production, sandbox or null, not \"\(text)\"", at: position)
                }
                environment = value
            case "name": name = try optionalString()
            case "model": model = try optionalString()
            case "os_version": osVersion = try optionalString()
            case "app_version": appVersion = try optionalString()
            case "groups":
                groups = []
                if scanner.consumeNull() { break }
                guard try scanner.peekKind() == .array else { throw try wrongType("an array of strings") }
                try scanner.forEachElement(depth: 1) { (element: inout JSONScanner) throws(JSONSyntaxError) in
                    guard try element.peekKind() == .string else {
                        throw element.failure("\(subject()): \"groups\" must be an array of strings, not \(try element.peekKind().name)")
                    }
                    groups.append(try element.readString())
                }
            case "registered_at": registeredAt = try optionalDate()
            case "last_seen_at": lastSeenAt = try optionalDate()
            case "last_delivered_at": lastDeliveredAt = try optionalDate()
            case deviceIDField where deviceID == nil:
                guard try scanner.peekKind() == .string else { throw try wrongType("a string") }
                let value = try scanner.readString()
                guard !value.isEmpty else { throw scanner.failure("\"device_id\" must not be empty", at: position) }
                id = value
            default:
                otherFields[field] = try scanner.readValue(depth: 1)
            }
        }
        guard let id else { throw scanner.failure("device has no \"device_id\"", at: start) }
        guard let token else { throw scanner.failure("device \"\(id)\" has no \"token\"", at: start) }
        let record = DeviceRecord(
            token: token, environment: environment, name: name, model: model, osVersion: osVersion,
            appVersion: appVersion, groups: groups, registeredAt: registeredAt, lastSeenAt: lastSeenAt,
            lastDeliveredAt: lastDeliveredAt, otherFields: otherFields
        )
        return (id, record)
    }

    /// Writes this record as one compact JSON object, known fields first, then the preserved ones
    /// sorted by name. With `deviceID`, a leading `device_id` member is added (JSON Lines output).
    func write(to writer: inout JSONWriter, deviceID: String? = nil) {
        writer.raw("{")
        if let deviceID {
            writer.key(Self.deviceIDField)
            writer.string(deviceID)
            writer.raw(",")
        }
        writer.raw("\"token\":")
        writer.string(token.hex)
        writer.raw(",\"environment\":")
        writer.optionalString(environment?.rawValue)
        writer.raw(",\"name\":")
        writer.optionalString(name)
        writer.raw(",\"model\":")
        writer.optionalString(model)
        writer.raw(",\"os_version\":")
        writer.optionalString(osVersion)
        writer.raw(",\"app_version\":")
        writer.optionalString(appVersion)
        writer.raw(",\"groups\":[")
        for (index, group) in groups.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.string(group)
        }
        writer.raw("],\"registered_at\":")
        writeDate(registeredAt, to: &writer)
        writer.raw(",\"last_seen_at\":")
        writeDate(lastSeenAt, to: &writer)
        writer.raw(",\"last_delivered_at\":")
        writeDate(lastDeliveredAt, to: &writer)
        if !otherFields.isEmpty {
            for (field, value) in otherFields.sorted(by: { $0.key < $1.key })
            where !Self.knownFields.contains(field) && !(deviceID != nil && field == Self.deviceIDField) {
                writer.raw(",")
                writer.key(field)
                writer.value(value)
            }
        }
        writer.raw("}")
    }

    private func writeDate(_ date: Date?, to writer: inout JSONWriter) {
        guard let date else { return writer.raw("null") }
        writer.raw(byte: UInt8(ascii: "\""))
        ISO8601Timestamp.append(date, to: &writer.bytes)
        writer.raw(byte: UInt8(ascii: "\""))
    }
}

extension JSONScanner.Kind {
    /// The JSON type name used in messages: "a string", "an object", ...
    var name: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}
