#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one way a notification is sent, whoever asks: `send-push` in the foreground, its `--detach`
/// and `--hook` background process, and every send route of `register-apns serve`.
///
/// `prepare` is pure: it applies the notification policy (urgency, `collapse-id auto`, quiet hours)
/// to what was asked and builds the APNs request, so a front end can refuse a bad payload before it
/// waits for anything. Then three steps, which `send` takes in order and a front end that acts
/// between them takes one by one:
/// 1. `select`: the devices, from the registry (a dry run stops after it);
/// 2. `check`: the policy may hold the send back (quiet hours with `skip`, the frequency cap); the
///    provider credentials are loaded and the CA file checked (a detaching front end forks after it);
/// 3. `deliver`: the transport is loaded, the requests go out with retries, and the registry's
///    bookkeeping follows (prune, learned environments, last delivery).
package struct PushSender: Sendable {
    /// The topic, environment, hosts, key, state directory and CA file to send with.
    package let configuration: Configuration
    /// Urgency, quiet hours and the frequency cap, applied by `prepare` and `check`.
    package let notificationPolicy: NotificationPolicy
    /// Retries, back-off and timeouts for the delivery.
    package let deliveryPolicy: DeliveryPolicy
    private let transports: any HTTP2TransportSource
    /// The registry the targets are chosen from and deliveries recorded in: one value, so the
    /// bookkeeping after a send reuses what selection read while the registry is unchanged (the
    /// state file's store keeps what it parsed), instead of reading it a second time.
    private let devices: any DeviceDirectory

    /// - Parameter devices: the registry (`Configuration.registry()` of the registry module).
    package init(
        configuration: Configuration, notificationPolicy: NotificationPolicy, deliveryPolicy: DeliveryPolicy,
        transports: any HTTP2TransportSource, devices: any DeviceDirectory
    ) {
        self.configuration = configuration
        self.notificationPolicy = notificationPolicy
        self.deliveryPolicy = deliveryPolicy
        self.transports = transports
        self.devices = devices
    }

    /// Whom a send goes to: every registered device when nothing is named.
    package struct Audience: Sendable, Equatable {
        /// Registered device ids; every one must be registered.
        package var deviceIDs: [String]
        /// Groups of registered devices.
        package var groups: [String]
        /// Device tokens, bypassing the registry.
        package var tokens: [String]
        /// Whether a named group without devices is an error (a person naming a group expects it to
        /// exist) rather than an empty selection (an agent's group nobody subscribed to yet).
        package var strictGroups: Bool
        /// A Live Activity start: to each selected device's push-to-start token, unless `tokens`
        /// names the tokens.
        package var pushToStart: Bool
        /// A scheduled send (`--due briefing`): of the devices named, only those whose send is due
        /// in their own zone at the time the push was prepared.
        package var due: DueSchedule?

        /// An audience; the default is every registered device.
        package init(
            deviceIDs: [String] = [], groups: [String] = [], tokens: [String] = [], strictGroups: Bool = false,
            pushToStart: Bool = false, due: DueSchedule? = nil
        ) {
            self.deviceIDs = deviceIDs
            self.groups = groups
            self.tokens = tokens
            self.strictGroups = strictGroups
            self.pushToStart = pushToStart
            self.due = due
        }

        /// Every registered device.
        package static let everyDevice = Audience()
    }

    /// A notification with the policy applied and its request built, for one audience.
    package struct PreparedPush: Sendable {
        /// The request to send; with quiet hours kept in each device's zone, for the devices outside them.
        package let request: APNsRequest
        /// What the policy decided (send, perhaps changed, or skip).
        package let decision: NotificationPolicy.Decision
        /// Whether the body was shortened to fit APNs' payload limit.
        package let shortened: Bool
        /// Whom the send goes to.
        package let audience: Audience
        /// What the frequency cap counts this send under: the collapse id, else the audience.
        package let capKey: String
        /// Whether the frequency cap lets it through whatever it counted: a critical alert, or a
        /// withdrawal (taking a notification back is never held back).
        package var overridesCap = false
        /// The time the policy and a scheduled send's due-ness are judged at.
        package let preparedAt: Date
        /// With quiet hours kept in each device's zone: what a device whose own clock is inside
        /// them gets (`request` and `decision` are for the others); `nil` otherwise.
        package let quiet: QuietVariant?

        /// The send for devices inside quiet hours: the request made passive, or a skip (`request` nil).
        package struct QuietVariant: Sendable {
            /// The passive request; `nil` when such devices are skipped.
            package let request: APNsRequest?
            /// What the policy decided for these devices.
            package let decision: NotificationPolicy.Decision
        }

        /// What the policy changed, to tell the user (`quiet hours ...: sent passive, without sound`).
        package var policyNote: String? {
            if case .send(let note) = decision { return note }
            return nil
        }
    }

    /// Applies the policy to `spec` and builds the request.
    /// - Throws: `PayloadError` (65) for a payload APNs would refuse, `ConfigurationError` (78)
    ///   when no topic is configured.
    package func prepare(
        _ spec: PushSpecification, urgency: Urgency? = nil, audience: Audience = .everyDevice,
        at now: Date = Date()
    ) throws -> PreparedPush {
        try Self.prepare(
            spec, configuration: configuration, notificationPolicy: notificationPolicy, urgency: urgency,
            audience: audience, at: now)
    }

    /// `prepare` without a sender, for a front end that sends the request some other way (a
    /// broadcast to a channel): only the configuration and the policy take part.
    package static func prepare(
        _ spec: PushSpecification, configuration: Configuration, notificationPolicy: NotificationPolicy,
        urgency: Urgency? = nil, audience: Audience = .everyDevice, at now: Date = Date()
    ) throws -> PreparedPush {
        var spec = spec
        let topic = configuration.topic?.value
        if topic == nil, let missing = ConfigurationError.missingSettings(configuration, needsTopic: true) {
            throw missing
        }
        var quiet: PreparedPush.QuietVariant?
        let decision: NotificationPolicy.Decision
        if let hours = notificationPolicy.quietHours, hours.inDeviceZone {
            var quietSpec = spec
            let quietDecision = notificationPolicy.apply(
                to: &quietSpec, urgency: urgency, groups: audience.groups, topic: topic, inQuietHours: true)
            decision = notificationPolicy.apply(
                to: &spec, urgency: urgency, groups: audience.groups, topic: topic, inQuietHours: false)
            if quietDecision != decision {
                var request: APNsRequest?
                if case .send = quietDecision {
                    request = try quietSpec.build(bundleID: topic, encryption: configuration.encryption).request
                }
                quiet = PreparedPush.QuietVariant(request: request, decision: quietDecision)
            }
        } else {
            decision = notificationPolicy.apply(
                to: &spec, urgency: urgency, groups: audience.groups, topic: topic, at: now)
        }
        // Read once: for a complete payload it parses the file.
        let critical = spec.isCriticalAlert
        if critical, !notificationPolicy.criticalAlerts { throw NotificationPolicy.criticalAlertsRefusal }
        let built = try spec.build(bundleID: topic, encryption: configuration.encryption)
        let capKey = NotificationPolicy.capKey(
            collapseID: built.request.collapseID, groups: audience.groups,
            deviceIDs: audience.deviceIDs, tokens: audience.tokens)
        var prepared = PreparedPush(
            request: built.request, decision: decision, shortened: built.shortened, audience: audience,
            capKey: capKey, preparedAt: now, quiet: quiet)
        prepared.overridesCap = critical || spec.withdraw != nil
        return prepared
    }

    /// How a send ended, when it did not throw.
    package enum Outcome {
        /// The audience holds no device.
        case noDevices
        /// The policy held the send back; every device is reported skipped with the reason.
        case heldBack(DeliveryReport)
        /// Sent: one result per device.
        case sent(DeliveryReport)
    }

    /// A send whose devices, policy, credentials and CA file were checked: what is left is to load
    /// the transport and deliver (`deliver(_:warn:)`).
    package struct CheckedSend: Sendable {
        /// The push, as `prepare` made it.
        package let prepared: PreparedPush
        /// The devices `select` chose.
        package let targets: [DeliveryTarget]
        /// The key and ids to sign provider tokens with, loaded and checked; `nil` when every target
        /// is an FCM device (an Android-only audience needs no Apple key).
        package let credentials: ProviderCredentials?
        /// For a send to FCM devices: the service account, or why it cannot be used (the FCM devices
        /// then end `notTried` with the reason while the APNs devices are sent to); `nil` when no
        /// target is an FCM device.
        package let fcmAccount: Result<FCMServiceAccount, FCMServiceAccountError>?
    }

    /// What the checks after the selection found.
    package enum Check {
        /// The policy held the send back (quiet hours with `skip`, the frequency cap).
        case heldBack(DeliveryReport)
        /// Ready to deliver.
        case ready(CheckedSend)
    }

    /// The three steps in order: `select`, `check`, `deliver`. A front end that acts between them
    /// (a dry run after the selection, a detaching one after the checks) calls them itself.
    /// - Parameters:
    ///   - credentials: the provider key and ids when the caller keeps them loaded (a server);
    ///     `nil` loads them from the configuration.
    ///   - warn: non-fatal problems (devices without a push-to-start token, a key file others can
    ///     read, a token that could not be cached, a registry that could not be updated).
    /// - Throws: what the steps throw.
    package func send(
        _ prepared: PreparedPush, credentials: ProviderCredentials? = nil, warn: @escaping (String) -> Void
    ) throws -> Outcome {
        let targets = try select(prepared, warn: warn)
        guard !targets.isEmpty else { return .noDevices }
        switch try check(prepared, targets: targets, credentials: credentials, warn: warn) {
        case .heldBack(let report): return .heldBack(report)
        case .ready(let checked): return .sent(try deliver(checked, warn: warn))
        }
    }

    /// `send` for a sender that lives on (serve's delivery thread, `pushkit-mcp`): the provider key
    /// and ids are loaded on the first call to APNs devices and kept in `credentials` for the next;
    /// the outcome as a report (empty when the audience holds no device), its advice (a key-scope
    /// answer, an expired token) warned once per send.
    /// - Throws: what `send` and `loadCredentials` throw.
    package func sendKeepingCredentials(
        _ prepared: PreparedPush, credentials: inout ProviderCredentials?, warn: @escaping (String) -> Void
    ) throws -> DeliveryReport {
        let targets = try select(prepared, warn: warn)
        guard !targets.isEmpty else { return DeliveryReport(results: [], seconds: 0) }
        switch try check(prepared, targets: targets, credentials: credentials, warn: warn) {
        case .heldBack(let report): return report
        case .ready(let checked):
            // Loaded by `check` only when a target is an APNs device: FCM devices need no Apple key.
            credentials = checked.credentials ?? credentials
            let report = try deliver(checked, warn: warn)
            for advice in report.advice { warn(advice) }
            return report
        }
    }

    /// Step 1: the devices `prepared` goes to (empty when its audience holds none), read from the
    /// registry; nothing is loaded yet.
    /// - Throws: `DeliverySelectionError` or `DeviceTokenError` (65) for an audience that names
    ///   what is not there, the registry's error when it cannot be read.
    package func select(_ prepared: PreparedPush, warn: (String) -> Void) throws -> [DeliveryTarget] {
        let audience = prepared.audience
        if !audience.tokens.isEmpty {
            var seen = Set<DeviceToken>()
            return try audience.tokens.compactMap { text in
                let token = try DeviceToken(validating: text, transport: nil)
                return seen.insert(token).inserted
                    ? DeliveryTarget(deviceID: nil, token: token, recordedEnvironment: nil) : nil
            }
        }
        guard audience.pushToStart else { return try devices.targets(for: audience, at: prepared.preparedAt) }
        let selection = try devices.pushToStartTargets(for: audience)
        let missing = selection.devicesWithoutToken
        if !missing.isEmpty {
            let shown =
                missing.prefix(10).joined(separator: ", ")
                + (missing.count > 10 ? " and \(missing.count - 10) more" : "")
            let has = missing.count == 1 ? " has" : "s have", isOrAre = missing.count == 1 ? "is" : "are"
            warn(
                "\(missing.count) selected device\(has) no push-to-start token and \(isOrAre) not sent the start: \(shown) "
                    + "(register one with register-apns add ID TOKEN --push-to-start-token HEX)")
        }
        return selection.targets
    }

    /// Step 2: lets the policy hold the send back; else loads the provider credentials (unless
    /// given; only when a target is an APNs device) and, when a target is an FCM device, the FCM
    /// service account, and checks the CA file. The transport is not loaded yet.
    /// - Throws: `ProviderKeyError` (66) or `ConfigurationError` (78) for unusable credentials or CA
    ///   file, `FCMServiceAccountError` when every target is an FCM device and the service account
    ///   cannot be used, the frequency cap's error when its file cannot be used.
    package func check(
        _ prepared: PreparedPush, targets: [DeliveryTarget], credentials loaded: ProviderCredentials? = nil,
        warn: (String) -> Void
    ) throws -> Check {
        if let reason = try notificationPolicy.holdBackReason(
            prepared.decision, capKey: prepared.capKey,
            stateDirectory: configuration.stateDirectory.value, overridesCap: prepared.overridesCap)
        {
            let configuration = self.configuration
            return .heldBack(
                DeliveryReport.skipped(targets, reason: reason) {
                    $0.recordedEnvironment ?? configuration.environment.value
                })
        }
        let apns = targets.contains { $0.token.transport == .apns }
        let credentials = apns ? try loaded ?? loadCredentials(warn: warn) : loaded
        var fcmAccount: Result<FCMServiceAccount, FCMServiceAccountError>?
        if targets.contains(where: { $0.token.transport == .fcm }) {
            let account = loadFCMAccount(warn: warn)
            if !apns, case .failure(let error) = account { throw error }
            fcmAccount = account
        }
        try CertificateAuthorityFile.check(configuration.caFile)
        return .ready(
            CheckedSend(prepared: prepared, targets: targets, credentials: credentials, fcmAccount: fcmAccount))
    }

    /// Step 3: loads the transport, delivers with retries, and records what was learned in the
    /// registry.
    /// - Parameters:
    ///   - interruption: ends the run early when set (see `RunInterruption`).
    ///   - onFinished: told each device's index in `checked.targets` and its result as soon as the
    ///     delivery is done with it, before the registry's bookkeeping (so without `pruned` and
    ///     `learnedEnvironment`).
    ///   - onTurn: called on every turn of the transport's loop, on this thread (see `PushDelivery`).
    /// - Throws: the transport source's error (69) when it cannot load.
    package func deliver(
        _ checked: CheckedSend, interruption: RunInterruption? = nil,
        onFinished: @escaping (Int, DeliveryResult) -> Void = { _, _ in }, onTurn: @escaping () -> Void = {},
        warn: @escaping (String) -> Void
    ) throws -> DeliveryReport {
        try transports.prepare()
        return try deliver(
            checked.prepared, to: checked.targets, credentials: checked.credentials, fcmAccount: checked.fcmAccount,
            interruption: interruption, onFinished: onFinished, onTurn: onTurn, warn: warn)
    }

    /// The FCM service account the configuration names, with a warning when others can read it.
    package func loadFCMAccount(warn: (String) -> Void) -> Result<FCMServiceAccount, FCMServiceAccountError> {
        guard let setting = configuration.fcmServiceAccount else {
            return .failure(
                FCMServiceAccountError(
                    "FCM devices need a Firebase service account: set fcm_service_account in the config file (or "
                        + "FCM_SERVICE_ACCOUNT) to the JSON file from the Firebase console (Project settings, "
                        + "Service accounts)"))
        }
        do {
            let account = try FCMServiceAccount.load(path: setting.value, source: setting.source)
            if let warning = FCMServiceAccount.permissionWarning(path: setting.value) { warn(warning) }
            return .success(account)
        } catch {
            return .failure(error)
        }
    }

    /// The provider key and ids, with a warning when others can read the key file.
    /// - Throws: `ProviderKeyError` (66 for a missing key file) or `ConfigurationError` (78).
    package func loadCredentials(warn: (String) -> Void) throws -> ProviderCredentials {
        let credentials = try ProviderCredentials.load(from: configuration)
        if let warning = ProviderCredentials.keyPermissionWarning(configuration) { warn(warning) }
        return credentials
    }

    /// What stands in the way of sending at all, checked as a send would: the topic, the provider
    /// key and ids, the CA file and the transport's libraries.
    /// - Throws: the error the first send would throw.
    package func checkReady() throws {
        if let missing = ConfigurationError.missingSettings(configuration, needsTopic: true) { throw missing }
        if configuration.topic == nil { throw ConfigurationError.noTopic }
        _ = try ProviderCredentials.load(from: configuration)
        try CertificateAuthorityFile.check(configuration.caFile)
        try transports.prepare()
    }

    /// Delivers with retries over one client from the transport source, then does the registry's
    /// bookkeeping. With quiet hours in each device's zone, the devices inside them get the quiet
    /// variant (or are skipped), in a second pass over the same connection within the same time.
    private func deliver(
        _ prepared: PreparedPush, to targets: [DeliveryTarget], credentials: ProviderCredentials?,
        fcmAccount: Result<FCMServiceAccount, FCMServiceAccountError>?,
        interruption: RunInterruption?, onFinished: @escaping (Int, DeliveryResult) -> Void,
        onTurn: @escaping () -> Void, warn: @escaping (String) -> Void
    ) throws -> DeliveryReport {
        let started = ContinuousClock.now
        let deadline = started + deliveryPolicy.timeout
        let configuration = self.configuration
        // Devices whose records cannot be read are refused here, and for an encrypted send those
        // without a content key: never sent in clear.
        let refusal = Self.refusals(of: prepared, among: targets, environment: configuration.environment.value)
        for (index, result) in refusal.refused { onFinished(index, result) }
        let sendPositions = refusal.refused.isEmpty ? nil : refusal.sendable
        let sendTargets = sendPositions.map { $0.map { targets[$0] } } ?? targets
        let reportFinished = { (index: Int, result: DeliveryResult) in
            onFinished(sendPositions?[index] ?? index, result)
        }
        var results: [DeliveryResult] = []
        if !sendTargets.isEmpty {
            let connectTimeout = min(deliveryPolicy.connectTimeout, deliveryPolicy.timeout)
            let client = transports.transport(
                caFile: configuration.caFile?.value, proxy: configuration.proxy?.value, connectTimeout: connectTimeout)
            let providerTokens = credentials.map {
                CachedProviderTokens(
                    cache: ProviderTokenCache(path: configuration.tokenCachePath), credentials: $0, warn: warn)
            }
            let fcm = fcmAccount.map { account in
                account.map { account in
                    FCMAccessTokens(
                        account: account,
                        cache: FCMAccessTokenCache(stateDirectory: configuration.stateDirectory.value),
                        post: { [transports] request in
                            // A client of its own: the token endpoint is another host, and a new token
                            // may be needed while the delivery's client is in its loop.
                            let responses = transports.separateTransport(
                                caFile: configuration.caFile?.value, proxy: configuration.proxy?.value,
                                connectTimeout: connectTimeout
                            ).perform([request], deadline: min(deadline, ContinuousClock.now + .seconds(30)))
                            return responses.first?.result
                                ?? .failure(TransportFailure(kind: .other, code: 0, message: "no answer"))
                        }, warn: warn)
                }
            }
            /// One pass to `passTargets`, the targets at `positions` of `sendTargets`: the APNs devices
            /// through `PushDelivery`, the FCM devices through `FCMDelivery` in the same loop.
            func deliverPass(
                _ request: APNsRequest, to passTargets: [DeliveryTarget], at positions: [Int]? = nil
            ) throws -> [DeliveryResult] {
                var policy = deliveryPolicy
                policy.timeout = max(.zero, deadline - ContinuousClock.now)
                let finished = { (index: Int, result: DeliveryResult) in
                    reportFinished(positions?[index] ?? index, result)
                }
                let fcmPositions = passTargets.indices.filter { passTargets[$0].token.transport == .fcm }
                let apnsPositions =
                    fcmPositions.isEmpty
                    ? Array(passTargets.indices)
                    : passTargets.indices.filter { passTargets[$0].token.transport == .apns }
                let apnsTargets = fcmPositions.isEmpty ? passTargets : apnsPositions.map { passTargets[$0] }
                // Sealed once per device for the run: a resend repeats the same sealed body.
                let bodies = try request.sealedContent.map { _ in
                    try apnsTargets.map { try request.body(for: $0.contentKey) }
                }
                var lanes: [FCMDelivery] = []
                var fcmResults: [DeliveryResult] = []
                if !fcmPositions.isEmpty {
                    let fcmTargets = fcmPositions.map { passTargets[$0] }
                    switch fcm {
                    case .success(let tokens)?:
                        let now = Date()
                        let message = { (index: Int) -> Result<Data, any Error> in
                            let target = fcmTargets[index]
                            return Result {
                                try FCMMessage(
                                    token: target.fcmToken!, request: request,
                                    payload: try request.body(for: target.contentKey), now: now
                                ).body
                            }
                        }
                        lanes.append(
                            FCMDelivery(
                                targets: fcmTargets, message: message, baseURL: configuration.fcmURL.value,
                                tokens: tokens, policy: policy, deadline: deadline,
                                defaultEnvironment: configuration.environment.value, interruption: interruption,
                                onFinished: { index, result in finished(fcmPositions[index], result) }))
                    case .failure(let error)?:
                        fcmResults = fcmTargets.map { target in
                            var result = DeliveryResult(target: target, environment: configuration.environment.value)
                            let stop = DeliveryStop.fcm(status: 0, reason: "", message: error.message)
                            result.outcome = .notTried
                            result.reason = stop.description
                            result.stoppedBy = stop
                            return result
                        }
                    case nil:
                        preconditionFailure("FCM targets without a checked FCM setup")
                    }
                }
                var apnsResults: [DeliveryResult] = []
                if apnsTargets.isEmpty {
                    DeliveryLanes.perform(
                        on: client, deadline: deadline,
                        cutoff: {
                            onTurn()
                            return interruption?.cutoff
                        }, alongside: lanes, next: { _ in .exhausted }, onResponse: { _ in })
                } else if let providerTokens {
                    apnsResults = try PushDelivery(
                        client: client, baseURL: { configuration.baseURL(for: $0).value }, tokens: providerTokens,
                        policy: policy, defaultEnvironment: configuration.environment.value,
                        interruption: interruption
                    ).deliver(
                        request, to: apnsTargets, bodies: bodies, alongside: lanes,
                        onFinished: { index, result in finished(apnsPositions[index], result) }, onTurn: onTurn)
                }
                if let lane = lanes.first { fcmResults = lane.finish() }
                guard !fcmPositions.isEmpty else { return apnsResults }
                var merged = [DeliveryResult?](repeating: nil, count: passTargets.count)
                for (position, result) in zip(apnsPositions, apnsResults) { merged[position] = result }
                for (position, result) in zip(fcmPositions, fcmResults) { merged[position] = result }
                return merged.map { $0! }
            }
            if let split = quietSplit(of: prepared, for: sendTargets) {
                // Each device's own clock decides: those outside quiet hours first, then those inside.
                var collected = [DeliveryResult?](repeating: nil, count: sendTargets.count)
                let outside = split.outside.map { sendTargets[$0] }, inside = split.inside.map { sendTargets[$0] }
                if !outside.isEmpty {
                    for (index, result) in zip(
                        split.outside, try deliverPass(prepared.request, to: outside, at: split.outside))
                    {
                        collected[index] = result
                    }
                }
                if let quietRequest = split.quiet.request, !inside.isEmpty {
                    for (index, result) in zip(
                        split.inside, try deliverPass(quietRequest, to: inside, at: split.inside))
                    {
                        collected[index] = result
                    }
                } else if case .skip(let reason) = split.quiet.decision {
                    let skipped = DeliveryReport.skipped(inside, reason: reason) {
                        $0.recordedEnvironment ?? configuration.environment.value
                    }
                    for (index, result) in zip(split.inside, skipped.results) { collected[index] = result }
                }
                results = collected.map { $0! }
            } else {
                results = try deliverPass(prepared.request, to: sendTargets)
            }
        } // A client made for this send, and its libcurl handles, are freed here, before the registry is written.
        if let sendPositions {
            var merged = [DeliveryResult?](repeating: nil, count: targets.count)
            for (index, result) in refusal.refused { merged[index] = result }
            for (position, result) in zip(sendPositions, results) { merged[position] = result }
            results = merged.map { $0! }
        }
        nameProxies(in: &results)
        if let credentials {
            DeliveryAdvice.annotate(&results, keyID: credentials.keyID, topic: configuration.topic?.value)
        }
        if targets.contains(where: { $0.deviceID != nil }) {
            do {
                try devices.record(&results)
            } catch {
                warn("the registry was not updated: \(error)")
                results.markPruneFailed(reason: "\(error)")
            }
        }
        do {
            if let credentials {
                try KeyScopeNotes(stateDirectory: configuration.stateDirectory.value).record(
                    results, keyID: credentials.keyID, topic: configuration.topic?.value, at: Date())
            }
        } catch {
            warn("what APNs said about the scope of key \(credentials?.keyID ?? "") was not noted: \(error)")
        }
        return DeliveryReport(results: results, seconds: started.secondsElapsed)
    }

    /// The targets not to send to, each with its `refused` result: those whose record cannot be
    /// read (`unusableRecord`), and for an encrypted send those without a content key; and the
    /// positions of the others, to send to.
    private static func refusals(
        of prepared: PreparedPush, among targets: [DeliveryTarget], environment: APNsEnvironment
    ) -> (refused: [(index: Int, result: DeliveryResult)], sendable: [Int]) {
        let encrypted = prepared.request.sealedContent != nil || prepared.quiet?.request?.sealedContent != nil
        guard encrypted || targets.contains(where: { $0.unusableRecord != nil }) else {
            return ([], Array(targets.indices))
        }
        var refused: [(index: Int, result: DeliveryResult)] = []
        var sendable: [Int] = []
        for (index, target) in targets.enumerated() {
            let reason =
                target.unusableRecord ?? (encrypted && target.contentKey == nil ? ContentKeyError.missing : nil)
            guard let reason else {
                sendable.append(index)
                continue
            }
            var result = DeliveryResult(target: target, environment: target.recordedEnvironment ?? environment)
            result.outcome = .refused
            result.reason = reason
            refused.append((index, result))
        }
        return (refused, sendable)
    }

    /// With quiet hours kept in each device's zone and a send that differs inside them: which
    /// targets' own clocks are inside them at the time the push was prepared, and which are not.
    /// `nil` when every target gets `prepared.request`.
    private func quietSplit(
        of prepared: PreparedPush, for targets: [DeliveryTarget]
    ) -> (outside: [Int], inside: [Int], quiet: PreparedPush.QuietVariant)? {
        guard let quiet = prepared.quiet, let hours = notificationPolicy.quietHours else { return nil }
        var zones = TimeZoneCache()
        var outside: [Int] = [], inside: [Int] = []
        for (index, target) in targets.enumerated() {
            let zone: any LocalTimeZone = target.timeZone.flatMap { zones.zone(named: $0) } ?? hours.zone
            if hours.contains(prepared.preparedAt, in: zone) { inside.append(index) } else { outside.append(index) }
        }
        return (outside, inside, quiet)
    }

    /// Says which proxy the requests that got no answer went through, with credentials masked (also
    /// in libcurl's message, which can quote the proxy URL), so "cannot connect" names the proxy.
    /// The proxy is resolved once per service address, not once per device.
    private func nameProxies(in results: inout [DeliveryResult]) {
        var proxies: [String: Setting<String>?] = [:]
        for index in results.indices where results[index].status == 0 {
            guard let reason = results[index].reason else { continue }
            let url =
                results[index].target.token.transport == .fcm
                ? configuration.fcmURL.value : configuration.baseURL(for: results[index].environment).value
            if proxies[url] == nil { proxies[url] = .some(configuration.proxyResolution(for: url).proxy) }
            guard let proxy = proxies[url] ?? nil else { continue }
            let shown = ProxyAddress.masked(proxy.value)
            results[index].reason =
                "through proxy \(shown) (from \(proxy.source)): " + reason.replacing(proxy.value, with: shown)
        }
    }
}
