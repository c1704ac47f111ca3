#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a `DeviceRecord` is read from and written to JSON: the state file's device entries and the
/// lines of `register-apns list --json`.
extension DeviceRecord {
    /// The member names this version knows, in the order they are written.
    static let knownFields: [String] = [
        "token", "transport", "push_to_start_token", "environment", "name", "model", "os_version", "app_version",
        "groups",
        "registered_at", "last_seen_at", "last_delivered_at", "timezone", "briefing", "content_key",
    ]

    /// The member that carries the device id in JSON Lines (`list --json`, `import`).
    static let deviceIDField = "device_id"

    /// Reads one device object.
    ///
    /// - Parameter deviceID: the id when the caller knows it (the key in the state file's `devices`);
    ///   `nil` to take it from a `device_id` member (a line of `list --json`).
    /// - Throws: `JSONSyntaxError` for bad JSON, a member of the wrong type, a bad token or timestamp.
    static func read(from scanner: inout JSONScanner, deviceID: String?) throws(JSONSyntaxError) -> RegisteredDevice {
        scanner.skipWhitespace()
        let start = scanner.offset
        var id = deviceID
        var token: DeviceToken?
        var transport: (value: PushTransport, position: Int)?
        var pushToStartToken: DeviceToken?
        var environment: APNsEnvironment?
        var name: String?, model: String?, osVersion: String?, appVersion: String?
        var groups: [String] = []
        var registeredAt: Date?, lastSeenAt: Date?, lastDeliveredAt: Date?
        var timeZone: String?, briefing: BriefingSettings?
        var contentKey: ContentKey?
        var otherFields: [String: JSONValue] = [:]

        let kind = try scanner.peekKind()
        guard kind == .object else { throw scanner.failure("\(subject(id)) must be an object, not \(kind.name)") }
        if try scanner.beginObject(depth: 1) {
            repeat {
                let nameStart = scanner.offset
                guard let raw = try scanner.readRawMemberName(), let field = Field(raw),
                    field != .deviceID || deviceID == nil
                else {
                    scanner.rewind(to: nameStart)
                    let name = try scanner.readMemberName()
                    otherFields[name] = try scanner.readValue(depth: 2)
                    continue
                }
                switch field {
                case .token:
                    let position = scanner.offset
                    let text = try readString(&scanner, field: field, subject: id)
                    do throws(DeviceTokenError) {
                        token = try DeviceToken(validating: text, transport: nil)
                    } catch {
                        throw scanner.failure("\(subject(id)): \(error.message)", at: position)
                    }
                case .transport: transport = try readTransport(&scanner, subject: id)
                case .pushToStartToken: pushToStartToken = try readOptionalToken(&scanner, field: field, subject: id)
                case .environment: environment = try readEnvironment(&scanner, subject: id)
                case .name: name = try readOptionalString(&scanner, field: field, subject: id)
                case .model: model = try readOptionalString(&scanner, field: field, subject: id)
                case .osVersion: osVersion = try readOptionalString(&scanner, field: field, subject: id)
                case .appVersion: appVersion = try readOptionalString(&scanner, field: field, subject: id)
                case .groups: groups = try readGroups(&scanner, subject: id)
                case .registeredAt: registeredAt = try readOptionalDate(&scanner, field: field, subject: id)
                case .lastSeenAt: lastSeenAt = try readOptionalDate(&scanner, field: field, subject: id)
                case .lastDeliveredAt: lastDeliveredAt = try readOptionalDate(&scanner, field: field, subject: id)
                case .timeZone: timeZone = try readOptionalString(&scanner, field: field, subject: id)
                case .briefing: briefing = try readBriefing(&scanner, subject: id)
                case .contentKey: contentKey = try readContentKey(&scanner, subject: id)
                case .deviceID:
                    let position = scanner.offset
                    let value = try readString(&scanner, field: field, subject: id)
                    guard !value.isEmpty else { throw scanner.failure("\"device_id\" must not be empty", at: position) }
                    id = value
                }
            } while try scanner.nextMember()
        }
        guard let id else { throw scanner.failure("device has no \"device_id\"", at: start) }
        guard let token else { throw scanner.failure("device \"\(id)\" has no \"token\"", at: start) }
        if let transport, let message = token.disagreement(with: transport.value, statedBy: "\"transport\"") {
            throw scanner.failure("\(subject(id)): \(message)", at: transport.position)
        }
        let record = DeviceRecord(
            token: token, environment: environment, name: name, model: model, osVersion: osVersion,
            appVersion: appVersion, groups: groups, registeredAt: registeredAt, lastSeenAt: lastSeenAt,
            lastDeliveredAt: lastDeliveredAt, pushToStartToken: pushToStartToken, timeZone: timeZone,
            briefing: briefing, contentKey: contentKey, otherFields: otherFields
        )
        return RegisteredDevice(id: id, record: record)
    }

    /// The members this version reads, matched on the raw bytes of their names so that reading
    /// 100,000 records makes no `String` for a name.
    enum Field {
        case token, transport, pushToStartToken, environment, name, model, osVersion, appVersion, groups, registeredAt,
            lastSeenAt,
            lastDeliveredAt, timeZone, briefing, contentKey, deviceID

        var name: StaticString {
            switch self {
            case .token: "token"
            case .transport: "transport"
            case .pushToStartToken: "push_to_start_token"
            case .environment: "environment"
            case .name: "name"
            case .model: "model"
            case .osVersion: "os_version"
            case .appVersion: "app_version"
            case .groups: "groups"
            case .registeredAt: "registered_at"
            case .lastSeenAt: "last_seen_at"
            case .lastDeliveredAt: "last_delivered_at"
            case .timeZone: "timezone"
            case .briefing: "briefing"
            case .contentKey: "content_key"
            case .deviceID: "device_id"
            }
        }

        init?(_ raw: UnsafeBufferPointer<UInt8>) {
            let candidates: [Field]
            switch raw.count {
            case 4: candidates = [.name]
            case 5: candidates = [.token, .model]
            case 6: candidates = [.groups]
            case 8: candidates = [.timeZone, .briefing]
            case 9: candidates = [.deviceID, .transport]
            case 10: candidates = [.osVersion]
            case 11: candidates = [.environment, .appVersion, .contentKey]
            case 12: candidates = [.lastSeenAt]
            case 13: candidates = [.registeredAt]
            case 17: candidates = [.lastDeliveredAt]
            case 19: candidates = [.pushToStartToken]
            default: return nil
            }
            for candidate in candidates where memcmp(raw.baseAddress!, candidate.name.utf8Start, raw.count) == 0 {
                self = candidate
                return
            }
            return nil
        }
    }

    private static func subject(_ id: String?) -> String {
        id.map { "device \"\($0)\"" } ?? "device"
    }

    private static func wrongType(
        _ scanner: inout JSONScanner, field: Field, subject id: String?, expected: String
    ) -> JSONSyntaxError {
        scanner.skipWhitespace()
        let found = (try? scanner.peekKind())?.name ?? "nothing"
        return scanner.failure("\(subject(id)): \"\(field.name)\" must be \(expected), not \(found)")
    }

    private static func readString(
        _ scanner: inout JSONScanner, field: Field, subject id: String?
    ) throws(JSONSyntaxError) -> String {
        guard try scanner.peekKind() == .string else {
            throw wrongType(&scanner, field: field, subject: id, expected: "a string")
        }
        return try scanner.readString()
    }

    private static func readOptionalString(
        _ scanner: inout JSONScanner, field: Field, subject id: String?
    ) throws(JSONSyntaxError) -> String? {
        switch try scanner.peekKind() {
        case .string: return try scanner.readString()
        case .null:
            _ = scanner.consumeNull()
            return nil
        default: throw wrongType(&scanner, field: field, subject: id, expected: "a string or null")
        }
    }

    private static func readOptionalToken(
        _ scanner: inout JSONScanner, field: Field, subject id: String?
    ) throws(JSONSyntaxError) -> DeviceToken? {
        let position = scanner.offset
        guard let text = try readOptionalString(&scanner, field: field, subject: id) else { return nil }
        do throws(DeviceTokenError) {
            return try DeviceToken(validating: text)
        } catch {
            throw scanner.failure("\(subject(id)): \"\(field.name)\": \(error.message)", at: position)
        }
    }

    /// A `content_key` (standard base64 of 32 bytes), or null. The message never quotes the value.
    private static func readContentKey(
        _ scanner: inout JSONScanner, subject id: String?
    ) throws(JSONSyntaxError) -> ContentKey? {
        let position = scanner.offset
        guard let text = try readOptionalString(&scanner, field: .contentKey, subject: id) else { return nil }
        do throws(ContentKeyError) {
            return try ContentKey(base64: text)
        } catch {
            throw scanner.failure("\(subject(id)): \"content_key\": \(error.message)", at: position)
        }
    }

    /// A `transport` (`apns` or `fcm`), or `nil` for null.
    private static func readTransport(
        _ scanner: inout JSONScanner, subject id: String?
    ) throws(JSONSyntaxError) -> (value: PushTransport, position: Int)? {
        let position = scanner.offset
        guard let text = try readOptionalString(&scanner, field: .transport, subject: id) else { return nil }
        guard let transport = PushTransport(rawValue: text) else {
            throw scanner.failure(
                "\(subject(id)): \"transport\" must be apns, fcm or null, not \"\(text)\"", at: position)
        }
        return (transport, position)
    }

    private static func readEnvironment(
        _ scanner: inout JSONScanner, subject id: String?
    ) throws(JSONSyntaxError) -> APNsEnvironment? {
        let position = scanner.offset
        if try scanner.peekKind() == .string, let raw = try scanner.readRawString() {
            if raw.elementsEqual("production".utf8) { return .production }
            if raw.elementsEqual("sandbox".utf8) { return .sandbox }
            scanner.rewind(to: position)
        }
        guard let text = try readOptionalString(&scanner, field: .environment, subject: id) else { return nil }
        guard let environment = APNsEnvironment(userText: text) else {
            throw scanner.failure(
                "\(subject(id)): \"environment\" must be production, sandbox or null, not \"\(text)\"", at: position)
        }
        return environment
    }

    private static func readOptionalDate(
        _ scanner: inout JSONScanner, field: Field, subject id: String?
    ) throws(JSONSyntaxError) -> Date? {
        let position = scanner.offset
        if try scanner.peekKind() == .string, let raw = try scanner.readRawString(),
            let date = ISO8601Timestamp.parse(utf8: raw)
        {
            return date
        }
        scanner.rewind(to: position)
        guard let text = try readOptionalString(&scanner, field: field, subject: id) else { return nil }
        guard let date = ISO8601Timestamp.parse(text) else {
            throw scanner.failure(
                "\(subject(id)): \"\(field.name)\" is not an ISO 8601 timestamp: \"\(text)\"", at: position)
        }
        return date
    }

    /// A `briefing` object (see `BriefingSettings`), or null. Its zone is not looked up here: a
    /// zone the tz database no longer has must not make the whole state file unreadable.
    private static func readBriefing(
        _ scanner: inout JSONScanner, subject id: String?
    ) throws(JSONSyntaxError) -> BriefingSettings? {
        let position = scanner.offset
        switch try scanner.peekKind() {
        case .null:
            _ = scanner.consumeNull()
            return nil
        case .object:
            guard case .object(let members) = try scanner.readValue(depth: 2) else { return nil }
            do throws(BriefingSettingsError) {
                return try BriefingSettings(members: members, zoneExists: { _ in true })
            } catch {
                throw scanner.failure("\(subject(id)): \"briefing\": \(error.message)", at: position)
            }
        default:
            throw wrongType(&scanner, field: .briefing, subject: id, expected: "an object or null")
        }
    }

    private static func readGroups(
        _ scanner: inout JSONScanner, subject id: String?
    ) throws(JSONSyntaxError) -> [String] {
        switch try scanner.peekKind() {
        case .null:
            _ = scanner.consumeNull()
            return []
        case .array:
            var groups: [String] = []
            if try scanner.beginArray(depth: 2) {
                repeat {
                    guard try scanner.peekKind() == .string else {
                        throw wrongType(&scanner, field: .groups, subject: id, expected: "an array of strings")
                    }
                    groups.append(try scanner.readString())
                } while try scanner.nextElement()
            }
            return groups
        default:
            throw wrongType(&scanner, field: .groups, subject: id, expected: "an array of strings")
        }
    }

    /// Writes this record as one compact JSON object, known fields first, then the preserved ones
    /// sorted by name. With `deviceID`, a leading `device_id` member is added (JSON Lines output).
    /// `transport` follows `token` in JSON Lines always, in the state file only for an FCM token, so
    /// an APNs device's record reads as before by older versions.
    /// `push_to_start_token`, `content_key` (standard base64) and the other later fields are written
    /// only when there is one, so records without them read as before by older versions.
    /// - Parameter contentKey: whether `content_key` is written: always in the state file, only when
    ///   asked in a listing (`list --json --show-content-keys`).
    func write(to writer: inout JSONWriter, deviceID: String? = nil, contentKey showsContentKey: Bool = true) {
        writer.raw("{")
        if let deviceID {
            writer.key(Self.deviceIDField)
            writer.string(deviceID)
            writer.raw(",")
        }
        writer.raw("\"token\":")
        writer.string(token.text)
        if deviceID != nil || token.transport != .apns {
            writer.raw(",\"transport\":")
            writer.string(token.transport.rawValue)
        }
        if let pushToStartToken {
            writer.raw(",\"push_to_start_token\":")
            writer.string(pushToStartToken.text)
        }
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
        if let timeZone {
            writer.raw(",\"timezone\":")
            writer.string(timeZone)
        }
        if let briefing {
            writer.raw(",\"briefing\":")
            writer.value(briefing.jsonValue)
        }
        if showsContentKey, let contentKey {
            writer.raw(",\"content_key\":")
            writer.string(contentKey.base64)
        }
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
