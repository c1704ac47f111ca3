#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// What the emulator answers a broadcast or a channel management request: the assessment (for the
/// record; `rejection` set when refused) and, for a success, the status, headers and body.
package struct ChannelRequestVerdict: Sendable {
    /// The fields read, for the record; its `rejection` is set when the request is refused.
    package var assessment: APNsRequestAssessment
    /// 200, 201 (create) or 204 (delete) when accepted; the rejection's status otherwise.
    package var status: Int
    /// Headers of a success besides `apns-request-id`: `apns-channel-id` after a create.
    package var headers: [(name: String, value: String)] = []
    /// The JSON body of a read or list.
    package var body: [UInt8]?

    init(assessment: APNsRequestAssessment, status: Int) {
        self.assessment = assessment
        self.status = status
    }
}

/// Judges broadcasts (`POST /4/broadcasts/apps/<bundle id>`, on the push listener) and channel
/// management requests (on the management listener) by Apple's rules, without I/O besides the
/// shared `EmulatorChannels`.
///
/// Broadcast, in order: POST (405 MethodNotAllowed); the path (404 BadPath); no header repeated
/// (400 DuplicateHeaders); the provider token as for a push (403 ..., key scopes included); the
/// configured bundle id and the key's `--key-topics` (400 TopicDisallowed); `apns-push-type` present (400
/// MissingPushType) and `liveactivity` (400 InvalidPushType); `apns-channel-id` present (400
/// MissingChannelId), base64 (400 BadChannelId) and a channel of the bundle id (400
/// ChannelNotRegistered); priority 10, 5 or 1 (400 BadPriority); expiration a non-negative integer
/// (400 BadExpirationDate); a body (400 PayloadEmpty) of at most 5120 bytes (413 PayloadTooLarge)
/// that is a JSON object whose `aps` is an object (400 BadPayload).
///
/// Management: the path and method (404 BadPath, 405 MethodNotAllowed), duplicates, the token and
/// the bundle id as above; create: a JSON body with `push-type` (400 MissingPushType) `LiveActivity`
/// (400 InvalidPushType) and `message-storage-policy` 0 or 1 (400 BadPayload), fewer than the limit
/// of channels (400 CannotCreateChannelConfig), 201 with `apns-channel-id`; read and delete:
/// `apns-channel-id` as for a broadcast, 200 with the configuration or 204; list: 200
/// `{"channels": [...]}`. Every answer carries `apns-request-id` (the request's, else a new UUID).
///
/// Lenient by default where peers send what Apple's pages do not show (node-apn sends the storage
/// policy as the string "1" and the push type as "liveactivity"), and on the expiration of
/// channels that store no message (Apple asks for 0): accepted with a note in the record.
/// `strict` (`--strict-broadcast`) refuses them.
package struct ChannelRequestJudge: Sendable {
    /// The largest broadcast payload accepted, in bytes. Apple's broadcast page, as far as it could
    /// be read here, names no limit; a peer SDK (mobile-surfaces' push) documents 5 KB for broadcasts.
    package static let broadcastPayloadLimit = 5120

    /// The keys, team and bundle id the provider token and topic are checked against, as for a push.
    package let trust: APNsRequestValidator.Trust
    /// The channels both listeners share: management requests change them, broadcasts look them up.
    package let channels: EmulatorChannels
    /// Refuse what the lenient default only notes (see the type's summary).
    package let strict: Bool

    /// A judge of requests signed by `trust`'s keys for the channels in `channels`; lenient unless `strict`.
    package init(trust: APNsRequestValidator.Trust, channels: EmulatorChannels, strict: Bool = false) {
        self.trust = trust
        self.channels = channels
        self.strict = strict
    }

    /// Whether `path` belongs to the broadcast API (served on the push listener).
    package static func isBroadcastPath(_ path: String) -> Bool {
        path.utf8.starts(with: "/4/broadcasts/".utf8)
    }

    // MARK: Broadcast

    /// Judges a broadcast request.
    package func judgeBroadcast(
        method: String, path: String, headers: [(name: String, value: String)], body: [UInt8],
        validator: APNsRequestValidator, now: Date
    ) -> ChannelRequestVerdict {
        var result = APNsRequestAssessment()
        result.kind = .broadcast
        let fields = Self.collect(headers)
        result.pushTypeHeader = fields.values["apns-push-type"]
        result.pushType = result.pushTypeHeader.flatMap(APNsPushType.init(rawValue:))
        result.priorityHeader = fields.values["apns-priority"]
        result.expirationHeader = fields.values["apns-expiration"]
        result.channelID = fields.values["apns-channel-id"]
        result.requestID = fields.values["apns-request-id"]
        result.topic = fields.values["apns-topic"]
        result.payloadSize = body.count
        if result.inspectPayload(body) == .objectWithoutAps {
            result.payloadProblem = "a Live Activity payload needs an \"aps\" object"
        }
        let prefix = "/4/broadcasts/apps/"
        if path.hasPrefix(prefix) {
            let bundle = String(path.dropFirst(prefix.count))
            if !bundle.isEmpty, !bundle.contains("/") { result.bundleID = bundle }
        }
        result.rejection = broadcastProblem(
            method: method, fields: fields, body: body, validator: validator, now: now, result: &result)
        return ChannelRequestVerdict(assessment: result, status: result.rejection?.status ?? 200)
    }

    private func broadcastProblem(
        method: String, fields: (values: [String: String], duplicated: Bool), body: [UInt8],
        validator: APNsRequestValidator, now: Date, result: inout APNsRequestAssessment
    ) -> APNsRejection? {
        if method != "POST" { return APNsRejection(.methodNotAllowed) }
        guard let bundleID = result.bundleID else { return APNsRejection(.badPath) }
        if fields.duplicated { return APNsRejection(.duplicateHeaders) }
        if let reason = validator.authenticate(authorization: fields.values["authorization"], now: now, into: &result) {
            return APNsRejection(reason)
        }
        if let rejection = topicProblem(bundleID, result: &result) { return rejection }
        guard let pushType = result.pushTypeHeader else { return APNsRejection(.missingPushType) }
        guard pushType == APNsPushType.liveactivity.rawValue else { return APNsRejection(.invalidPushType) }
        let policy: ChannelStoragePolicy
        switch channel(result.channelID, bundleID: bundleID) {
        case .refused(let rejection): return rejection
        case .found(let found): policy = found
        }
        if let text = result.priorityHeader {
            guard let priority = Int(text).flatMap(APNsPriority.init(rawValue:)), priority.isAllowed(for: .liveactivity)
            else { return APNsRejection(.badPriority) }
        }
        if let text = result.expirationHeader {
            guard let seconds = Int(text), seconds >= 0 else { return APNsRejection(.badExpirationDate) }
        }
        if policy == .none, result.expirationHeader != "0" {
            let sent = result.expirationHeader.map { "apns-expiration \($0)" } ?? "no apns-expiration"
            if strict {
                result.payloadProblem =
                    "\(sent) on a channel that stores no message (Apple asks for 0; --strict-broadcast)"
                return APNsRejection(.badExpirationDate)
            }
            note(
                "\(sent) on a channel that stores no message: Apple asks for 0 (--strict-broadcast refuses it)",
                in: &result)
        }
        if body.isEmpty { return APNsRejection(.payloadEmpty) }
        if body.count > Self.broadcastPayloadLimit { return APNsRejection(.payloadTooLarge) }
        if result.payloadProblem != nil { return APNsRejection(.badPayload) }
        if let payload = result.payload, let event = try? JSONValue.parse(Data(payload))["aps"]?["event"]?.stringValue,
            event == "start"
        {
            note("a broadcast cannot start a Live Activity; devices ignore a start sent to a channel", in: &result)
        }
        return nil
    }

    // MARK: Channel management

    /// Judges a channel management request; creates or deletes the channel when it is accepted.
    package func judgeManagement(
        method: String, path: String, headers: [(name: String, value: String)], body: [UInt8],
        validator: APNsRequestValidator, now: Date
    ) -> ChannelRequestVerdict {
        var result = APNsRequestAssessment()
        result.kind = .channelManagement
        let fields = Self.collect(headers)
        result.channelID = fields.values["apns-channel-id"]
        result.requestID = fields.values["apns-request-id"]
        result.payloadSize = body.count
        if !body.isEmpty, body.count <= 64 * 1024, case .success(let scan) = PayloadInspection.inspect(body) {
            result.payload = scan.compact
        }
        var verdict = ChannelRequestVerdict(assessment: result, status: 200)
        let rejection = managementProblem(
            method: method, path: path, fields: fields, body: body, validator: validator, now: now,
            verdict: &verdict)
        verdict.assessment.rejection = rejection
        if let rejection {
            verdict.status = rejection.status
            verdict.headers = []
            verdict.body = nil
        }
        return verdict
    }

    private func managementProblem(
        method: String, path: String, fields: (values: [String: String], duplicated: Bool), body: [UInt8],
        validator: APNsRequestValidator, now: Date, verdict: inout ChannelRequestVerdict
    ) -> APNsRejection? {
        guard let (bundleID, resource) = Self.managementPath(path) else { return APNsRejection(.badPath) }
        verdict.assessment.bundleID = bundleID
        switch (resource, method) {
        case ("channels", "POST"): verdict.assessment.kind = .channelCreate
        case ("channels", "GET"): verdict.assessment.kind = .channelRead
        case ("channels", "DELETE"): verdict.assessment.kind = .channelDelete
        case ("all-channels", "GET"): verdict.assessment.kind = .channelList
        default: return APNsRejection(.methodNotAllowed)
        }
        if fields.duplicated { return APNsRejection(.duplicateHeaders) }
        if let reason = validator.authenticate(
            authorization: fields.values["authorization"], now: now, into: &verdict.assessment)
        {
            return APNsRejection(reason)
        }
        if let rejection = topicProblem(bundleID, result: &verdict.assessment) { return rejection }
        switch verdict.assessment.kind {
        case .channelCreate:
            let policy: ChannelStoragePolicy
            switch creation(body, into: &verdict.assessment) {
            case .refused(let rejection): return rejection
            case .found(let found): policy = found
            }
            guard let id = channels.create(bundleID: bundleID, storagePolicy: policy) else {
                verdict.assessment.payloadProblem = "the app has \(channels.limit) channels, the limit"
                return APNsRejection(.cannotCreateChannelConfig)
            }
            verdict.assessment.channelID = id
            verdict.status = 201
            verdict.headers = [("apns-channel-id", id)]
        case .channelRead:
            switch channel(verdict.assessment.channelID, bundleID: bundleID) {
            case .refused(let rejection): return rejection
            case .found(let policy):
                var writer = JSONObjectWriter(capacity: 64)
                writer.field("message-storage-policy", policy.rawValue)
                writer.field("push-type", ChannelManagementRequest.pushType)
                verdict.body = writer.finish()
            }
        case .channelDelete:
            if case .refused(let rejection) = channel(verdict.assessment.channelID, bundleID: bundleID) {
                return rejection
            }
            _ = channels.delete(bundleID: bundleID, id: verdict.assessment.channelID ?? "")
            verdict.status = 204
        default:
            let ids = channels.ids(bundleID: bundleID)
            verdict.body = Array(JSONValue.object(["channels": .array(ids.map(JSONValue.string))]).serialized())
        }
        return nil
    }

    /// The storage policy a create asks for, or why it is refused.
    private func creation(
        _ body: [UInt8], into result: inout APNsRequestAssessment
    ) -> Lookup<ChannelStoragePolicy> {
        guard !body.isEmpty else { return .refused(APNsRejection(.payloadEmpty)) }
        guard let value = try? JSONValue.parse(Data(body)), let object = value.objectValue else {
            result.payloadProblem = "the body is not a JSON object"
            return .refused(APNsRejection(.badPayload))
        }
        guard let pushType = object["push-type"] else { return .refused(APNsRejection(.missingPushType)) }
        guard let name = pushType.stringValue, name.lowercased() == "liveactivity" else {
            return .refused(APNsRejection(.invalidPushType))
        }
        if name != ChannelManagementRequest.pushType {
            if strict {
                result.payloadProblem = "push-type \"\(name)\": Apple documents \"LiveActivity\" (--strict-broadcast)"
                return .refused(APNsRejection(.invalidPushType))
            }
            note("push-type \"\(name)\" taken as \"LiveActivity\", as Apple documents it", in: &result)
        }
        let member = object["message-storage-policy"]
        var number = member?.integerValue
        if number == nil, let text = member?.stringValue, let parsed = Int(text) {
            if strict {
                result.payloadProblem =
                    "message-storage-policy is the string \"\(text)\"; Apple documents a number (--strict-broadcast)"
                return .refused(APNsRejection(.badPayload))
            }
            note(
                "message-storage-policy sent as the string \"\(text)\" (node-apn does); Apple documents a number",
                in: &result)
            number = parsed
        }
        result.storagePolicy = number
        guard let number, let policy = ChannelStoragePolicy(rawValue: number) else {
            result.payloadProblem = "message-storage-policy must be 0 (no message stored) or 1 (most recent stored)"
            return .refused(APNsRejection(.badPayload))
        }
        return .found(policy)
    }

    // MARK: Shared checks

    /// 400 TopicDisallowed when the path's bundle id is not the configured one, or not one the
    /// token's key is scoped to (`--key-topics`), as for a push's topic.
    private func topicProblem(_ bundleID: String, result: inout APNsRequestAssessment) -> APNsRejection? {
        if let trusted = trust.bundleID, trusted != bundleID { return APNsRejection(.topicDisallowed) }
        if !trust.keyScopes.isEmpty, let keyID = result.providerToken?.keyID, let scope = trust.keyScopes[keyID],
            !scope.allows(topic: bundleID, pushType: .alert)
        {
            result.providerTokenProblem =
                "key \(keyID) is scoped to \(scope.topics?.sorted().joined(separator: ", ") ?? "")"
                + " (--key-topics), not to \(bundleID)"
            return APNsRejection(.topicDisallowed)
        }
        return nil
    }

    /// The channel `id` names, or why it does not name one of `bundleID`'s.
    private func channel(_ id: String?, bundleID: String) -> Lookup<ChannelStoragePolicy> {
        guard let id, !id.isEmpty else { return .refused(APNsRejection(.missingChannelID)) }
        guard BroadcastChannelID.isWellFormed(id) else { return .refused(APNsRejection(.badChannelID)) }
        guard let policy = channels.storagePolicy(bundleID: bundleID, id: id) else {
            return .refused(APNsRejection(.channelNotRegistered))
        }
        return .found(policy)
    }

    private func note(_ text: String, in result: inout APNsRequestAssessment) {
        result.payloadNote = [result.payloadNote, text].compactMap { $0 }.joined(separator: "; ")
    }

    /// What a lookup found, or APNs' answer when it found nothing usable.
    private enum Lookup<Value> {
        case found(Value)
        case refused(APNsRejection)
    }

    /// `(bundle id, "channels" | "all-channels")` for `/1/apps/<bundle id>/channels` and
    /// `/1/apps/<bundle id>/all-channels`; `nil` for any other path.
    static func managementPath(_ path: String) -> (String, String)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "1", parts[2] == "apps", !parts[3].isEmpty,
            parts[4] == "channels" || parts[4] == "all-channels"
        else { return nil }
        return (String(parts[3]), String(parts[4]))
    }

    /// The headers by lowercase name (pseudo-headers skipped), and whether any name repeats.
    static func collect(_ headers: [(name: String, value: String)]) -> (values: [String: String], duplicated: Bool) {
        var values: [String: String] = [:]
        var duplicated = false
        for header in headers where !header.name.hasPrefix(":") {
            let name = header.name.lowercased()
            if values[name] != nil { duplicated = true }
            values[name] = header.value
        }
        return (values, duplicated)
    }
}
