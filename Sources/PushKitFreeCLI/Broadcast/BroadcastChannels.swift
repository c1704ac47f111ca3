import PushKitFreeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The configured app's broadcast channels: created, read, deleted and listed at Apple's channel
/// management API, and remembered by name in the channels file (`ChannelStore`).
///
/// A channel created here is recorded the moment APNs answers 201, before anything else happens,
/// so its id is never lost; a name is checked to be free before APNs is asked.
package struct BroadcastChannels: Sendable {
    /// The topic, environment, management hosts, key and state directory to use.
    package let configuration: Configuration
    /// Retries, back-off and timeouts for each management request.
    package let deliveryPolicy: DeliveryPolicy
    /// The channels file in the configured state directory.
    package let store: ChannelStore
    private let transports: any HTTP2TransportSource

    /// Channels of the app `configuration` names, in its state directory's channels file, reached through `transports`.
    package init(configuration: Configuration, deliveryPolicy: DeliveryPolicy, transports: any HTTP2TransportSource) {
        self.configuration = configuration
        self.deliveryPolicy = deliveryPolicy
        self.transports = transports
        store = ChannelStore(stateDirectory: configuration.stateDirectory.value)
    }

    /// A channel as the user named it: a recorded name, or an id.
    package struct Target: Sendable, Equatable {
        /// The record, when the channel is one this project created (by name or by id).
        package let record: ChannelRecord?
        /// The channel's `apns-channel-id`.
        package let id: String
        /// The record's environment, else the configured one.
        package let environment: APNsEnvironment

        /// A target as given; `resolve(_:)` is how a name or id becomes one.
        package init(record: ChannelRecord?, id: String, environment: APNsEnvironment) {
            self.record = record
            self.id = id
            self.environment = environment
        }

        /// `name (id)` or the id alone, for messages.
        package var label: String {
            record.map { "\"\(TerminalText.field($0.name))\" (\($0.id))" } ?? id
        }
    }

    /// Finds `nameOrID`: a recorded name first, else a well-formed channel id (with its record when
    /// it has one).
    /// - Throws: `BroadcastChannelError.unknownChannel` (65) when it is neither.
    package func resolve(_ nameOrID: String) throws(BroadcastChannelError) -> Target {
        let records = try store.load()
        if let record = records.first(where: { $0.name == nameOrID }) {
            return Target(record: record, id: record.id, environment: record.environment)
        }
        guard BroadcastChannelID.isWellFormed(nameOrID) else { throw .unknownChannel(nameOrID, path: store.path) }
        let record = records.first { $0.id == nameOrID && $0.environment == configuration.environment.value }
        return Target(record: record, id: nameOrID, environment: record?.environment ?? configuration.environment.value)
    }

    /// Creates a channel in the configured environment and records it as `name`.
    /// - Throws: `BroadcastChannelError` (name taken or invalid, APNs' refusal, no answer, not recorded),
    ///   `ConfigurationError` (no topic), `ProviderKeyError`, the transport source's error.
    package func create(
        name: String, storagePolicy: ChannelStoragePolicy, at now: Date = Date(), warn: @escaping (String) -> Void
    ) throws -> ChannelRecord {
        if let problem = ChannelRecord.problem(withName: name) { throw BroadcastChannelError.invalidName(problem) }
        try store.checkNameIsFree(name)
        let bundleID = try self.bundleID()
        let environment = configuration.environment.value
        let request = ChannelManagementRequest(bundleID: bundleID, operation: .create(storagePolicy))
        guard
            case .created(let id) = try exchange(
                request, environment: environment, action: "create a channel", warn: warn)
        else {
            throw BroadcastChannelError.refused(
                APNsRejection(status: 502, reason: APNsReason(rawValue: "Unknown502")), action: "create a channel",
                requestID: nil)
        }
        let record = ChannelRecord(
            name: name, id: id, environment: environment, storagePolicy: storagePolicy, bundleID: bundleID,
            createdAt: now)
        do {
            try store.add(record)
        } catch {
            // The channel exists at APNs now: whatever kept it from the file, its id must be shown.
            throw BroadcastChannelError.notRecorded(
                name: name, id: id, environment: environment, cause: error.description, status: error.exitStatus)
        }
        return record
    }

    /// The channel's configuration as APNs keeps it.
    package func read(
        _ target: Target, warn: @escaping (String) -> Void
    ) throws -> (storagePolicy: ChannelStoragePolicy?, pushType: String?) {
        let request = ChannelManagementRequest(
            bundleID: try bundleID(of: target), operation: .read(channelID: target.id))
        let response = try exchange(
            request, environment: target.environment, action: "read channel \(target.label)", warn: warn)
        guard case .channel(let policy, let pushType) = response else { return (nil, nil) }
        return (policy, pushType)
    }

    /// What `delete` did.
    package enum Deletion: Sendable, Equatable {
        /// APNs deleted the channel.
        case deleted
        /// APNs had no such channel any more (ChannelNotRegistered); only the name was forgotten.
        case alreadyGone
    }

    /// Deletes the channel at APNs and forgets its name. A channel APNs no longer has is forgotten
    /// too (and reported as such); any other refusal leaves the name recorded.
    package func delete(_ target: Target, warn: @escaping (String) -> Void) throws -> Deletion {
        let request = ChannelManagementRequest(
            bundleID: try bundleID(of: target), operation: .delete(channelID: target.id))
        let deletion: Deletion
        do {
            _ = try exchange(
                request, environment: target.environment, action: "delete channel \(target.label)", warn: warn)
            deletion = .deleted
        } catch BroadcastChannelError.refused(let rejection, let action, let requestID) {
            guard rejection.reason == .channelNotRegistered, target.record != nil else {
                throw BroadcastChannelError.refused(rejection, action: action, requestID: requestID)
            }
            deletion = .alreadyGone
        }
        if let record = target.record { try store.remove(named: record.name) }
        return deletion
    }

    /// Every channel id APNs has for the app in `environment`.
    package func list(environment: APNsEnvironment, warn: @escaping (String) -> Void) throws -> [String] {
        let request = ChannelManagementRequest(bundleID: try bundleID(), operation: .list)
        guard
            case .channels(let ids) = try exchange(
                request, environment: environment, action: "list channels", warn: warn)
        else { return [] }
        return ids
    }

    // MARK: Exchange

    private func bundleID() throws(ConfigurationError) -> String {
        guard let topic = configuration.topic?.value, !topic.isEmpty else { throw ConfigurationError.noTopic }
        return topic
    }

    private func bundleID(of target: Target) throws(ConfigurationError) -> String {
        if let bundleID = target.record?.bundleID, !bundleID.isEmpty { return bundleID }
        return try bundleID()
    }

    /// Sends `request` with the pipeline's retries and returns APNs' success answer.
    /// - Throws: `BroadcastChannelError.refused` for any other answer, `.noAnswer` when there was none.
    private func exchange(
        _ request: ChannelManagementRequest, environment: APNsEnvironment, action: String,
        warn: @escaping (String) -> Void
    ) throws -> ChannelManagementResponse {
        let baseURL = configuration.managementURL(for: environment).value
        let outcome = try SingleRequestExchange(
            configuration: configuration, deliveryPolicy: deliveryPolicy, transports: transports
        ).send(warn: warn) { token in request.http2Request(baseURL: baseURL, providerToken: token) }
        guard let answer = outcome.answer else {
            throw BroadcastChannelError.noAnswer(
                outcome.failure ?? TransportFailure(kind: .other, code: 0, message: "no answer"), action: action,
                host: baseURL)
        }
        let response = ChannelManagementResponse(answer, to: request.operation)
        if case .rejected(let rejection) = response {
            throw BroadcastChannelError.refused(rejection, action: action, requestID: answer.headers["apns-request-id"])
        }
        return response
    }
}

/// Loads what one request needs (credentials, CA file, transport) and sends it with
/// `SingleRequestDelivery`.
struct SingleRequestExchange {
    let configuration: Configuration
    let deliveryPolicy: DeliveryPolicy
    let transports: any HTTP2TransportSource

    func send(
        warn: @escaping (String) -> Void, _ make: (String) -> HTTP2Request
    ) throws -> SingleRequestDelivery.Outcome {
        let credentials = try ProviderCredentials.load(from: configuration)
        if let warning = ProviderCredentials.keyPermissionWarning(configuration) { warn(warning) }
        try CertificateAuthorityFile.check(configuration.caFile)
        try transports.prepare()
        let tokens = CachedProviderTokens(
            cache: ProviderTokenCache(path: configuration.tokenCachePath), credentials: credentials, warn: warn)
        let client = transports.transport(
            caFile: configuration.caFile?.value, proxy: configuration.proxy?.value,
            connectTimeout: min(deliveryPolicy.connectTimeout, deliveryPolicy.timeout))
        return try SingleRequestDelivery(client: client, tokens: tokens, policy: deliveryPolicy).send(make)
    }
}
