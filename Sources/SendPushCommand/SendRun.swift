import ArgumentParser
import PushKitFreeCLI
import PushKitFreeCore
import PushKitFreeRegistry
import PushKitFreeTransport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One `send-push` run once its command line is parsed and its configuration resolved: the push
/// and whom it goes to as values, and the steps of the core's one pipeline (`PushSender`), with
/// what the command line does between them:
/// 1. `prepare`: the policy applied and the request built (a payload APNs would refuse stops here);
/// 2. `select`: the devices, from the registry (none: a word, perhaps a push.log note; a dry run
///    prints the requests and stops);
/// 3. `check`: the policy may hold the send back; the credentials and the CA file are loaded
///    (`--detach` and `--hook` fork after it, the parent says where the outcomes go);
/// 4. `deliver`: with progress lines and a status line in the foreground, to push.log in the
///    background; then the report and the exit status.
///
/// `--channel` is one request to the broadcast endpoint instead (`broadcast(to:)`): prepared by the
/// same policy, no device selected.
struct SendRun {
    /// How the outcome is reported.
    enum Mode {
        /// In the foreground: progress, the report, the exit status.
        case foreground
        /// `--detach`: delivered from a background process, outcomes to push.log.
        case detach
        /// `--hook`: `detach` for a reply hook, which hears nothing but a wrong command line.
        case hook
    }

    let configuration: Configuration
    let specification: PushSpecification
    let notificationPolicy: NotificationPolicy
    let deliveryPolicy: DeliveryPolicy
    let urgency: Urgency?
    let audience: PushSender.Audience
    /// When the policy and a scheduled send's due-ness are judged (`--now`, else now).
    let preparedAt: Date
    /// `--channel`: a broadcast to this channel instead of a send to devices.
    let channel: String?
    /// The reply form's MESSAGE_ID, for push.log; whether the reply form was used.
    let messageID: String?
    let isReplyForm: Bool
    let mode: Mode
    /// `--dry-run`, `--json`, `--full`.
    let output: OutputOptions
    /// `--due`: nothing due is the usual case of a run from cron, and not worth a word.
    let isScheduled: Bool
    /// `--require-device`: no device is an error (66).
    let requiresDevice: Bool

    private var tool: String { SendPush.tool }
    private var background: Bool { mode != .foreground }
    private func warn(_ message: String) { ToolSupport.warn(message, tool: tool) }

    /// Sends, or broadcasts.
    /// - Throws: `ExitCode` for an outcome that is not success (some devices failed, interrupted, no
    ///   device with `--require-device`), the pipeline's errors otherwise.
    func run() throws {
        if let channel { return try broadcast(to: channel) }
        let sender = PushSender(
            configuration: configuration, notificationPolicy: notificationPolicy, deliveryPolicy: deliveryPolicy,
            transports: CurlTransportSource(keepsClient: false), devices: configuration.registry())
        let prepared = try sender.prepare(specification, urgency: urgency, audience: audience, at: preparedAt)
        if prepared.shortened { warn("the body was shortened to fit APNs' payload limit") }

        let log = PushLog(stateDirectory: configuration.stateDirectory.value, limit: notificationPolicy.logLimit)
        let reporting = DetachedReporting(log: log, messageID: messageID) { ToolSupport.warn($0, tool: SendPush.tool) }
        let targets = try sender.select(prepared, warn: reporting.warn)
        guard !targets.isEmpty else { return try noDevices(log: log) }
        if mode != .hook, let note = Self.recordedEnvironmentNote(configuration.environment, targets: targets) {
            warn(note)
        }
        if output.dryRun {
            let render = output.json ? DryRun.jsonLines : DryRun.render
            StandardStreams.writeOutput(render(prepared.request, targets, configuration, output.full))
            return
        }
        let checked: PushSender.CheckedSend
        switch try sender.check(prepared, targets: targets, warn: reporting.warn) {
        case .heldBack(let report):
            if background { try log.append(PushLog.records(of: report, at: Date(), messageID: messageID)) }
            if mode != .hook { print(report) }
            return
        case .ready(let ready):
            checked = ready
        }
        if let note = prepared.policyNote, mode != .hook { StandardStreams.writeError("\(tool): \(note)\n") }
        if background {
            guard try detach(devices: targets.count, log: log) else { return }
            reporting.didDetach()
        }
        try deliver(checked, with: sender, reporting: reporting)
    }

    /// No device to send to: a word on standard error (none for a scheduled run), a push.log note
    /// where no one reads standard error (the background, the reply form's hook).
    private func noDevices(log: PushLog) throws {
        if isScheduled && !requiresDevice { return }
        let message = "no devices to send to (registry: \(configuration.registryLocation))"
        warn(message)
        if requiresDevice { throw ExitCode(ExitStatus.noInput.rawValue) }
        if (background || isReplyForm) && !output.dryRun {
            try log.append([PushLog.noteRecord(outcome: "no_devices", message, at: Date(), messageID: messageID)])
        }
    }

    /// Forks the delivery into the background.
    /// - Returns: `true` in the background process, `false` in the one that returns to its caller
    ///   (which has said where the outcomes go).
    private func detach(devices count: Int, log: PushLog) throws -> Bool {
        try PosixFile.createPrivateDirectory(configuration.stateDirectory.value)
        guard try ProcessDetacher.detach() == .detached else {
            if mode != .hook {
                let devices = "\(count) device\(count == 1 ? "" : "s")"
                StandardStreams.writeError(
                    "\(tool): sending to \(devices) in the background; outcomes go to \(log.path)\n")
            }
            return false
        }
        return true
    }

    /// Step 4: delivers with progress (in the foreground) and SIGINT/SIGTERM handled, then reports.
    private func deliver(
        _ checked: PushSender.CheckedSend, with sender: PushSender, reporting: DetachedReporting
    )
        throws
    {
        let interruption = RunInterruption.process
        let quietly = reporting.detached || mode == .hook
        InterruptSignals.watch()
        defer { InterruptSignals.stop() }
        let progress = SendProgress(
            targets: checked.targets, fullTokens: output.full, streamsLines: !output.json && !quietly,
            showsStatus: !quietly, interruption: interruption)
        var announced = false
        let onTurn = {
            progress.tick()
            if !announced, !quietly, let signal = interruption.signal {
                announced = true
                StandardStreams.writeError(
                    "\n\(tool): interrupted (\(InterruptSignals.name(of: signal))): sending stopped; waiting up "
                        + "to \(interruption.grace.components.seconds) s for the answers on their way (again to quit now)\n"
                )
            }
        }
        let report: DeliveryReport
        do {
            report = try sender.deliver(
                checked, interruption: interruption, onFinished: progress.finished, onTurn: onTurn,
                warn: reporting.warn)
        } catch  where reporting.detached {
            let message = (error as? any PushKitError).map(ToolSupport.message(for:)) ?? String(describing: error)
            reporting.failed(error, message: message)
            return
        }
        progress.finish()
        if reporting.detached {
            reporting.delivered(report)
            return
        }
        print(report, excluding: progress.printed, idWidth: progress.idWidth)
        if let signal = interruption.signal { throw ExitCode(InterruptSignals.exitStatus(for: signal)) }
        if report.exitStatus != .success { throw ExitCode(report.exitStatus.rawValue) }
    }

    /// `--channel`: one request to the broadcast endpoint for the channel's subscribers; no device
    /// is selected and the registry is not read.
    private func broadcast(to channel: String) throws {
        let transports = CurlTransportSource(keepsClient: false)
        let target = try BroadcastChannels(
            configuration: configuration, deliveryPolicy: deliveryPolicy, transports: transports
        ).resolve(channel)
        if let record = target.record, record.environment != configuration.environment.value,
            configuration.environment.source != .defaultValue
        {
            warn(
                "channel \(target.label) lives in \(record.environment.rawValue); the broadcast goes there, "
                    + "not to \(configuration.environment.value.rawValue) (\(configuration.environment.source))")
        }
        let sender = BroadcastSender(
            configuration: configuration, deliveryPolicy: deliveryPolicy, transports: transports)
        let prepared = try PushSender.prepare(
            specification, configuration: configuration, notificationPolicy: notificationPolicy, urgency: urgency)
        let request = try BroadcastSender.request(prepared.request, to: target, warn: warn)
        if output.dryRun {
            StandardStreams.writeOutput(sender.dryRun(request, to: target))
            return
        }
        let report = try sender.send(request, to: target, warn: warn)
        StandardStreams.writeOutput(output.json ? report.jsonLine : report.line)
        StandardStreams.writeError("\(tool): \(report.summary)\n")
        if report.exitStatus != .success { throw ExitCode(report.exitStatus.rawValue) }
    }

    /// The report: the device lines not written yet (`printed` were streamed), the advice, the summary.
    private func print(_ report: DeliveryReport, excluding printed: Set<Int> = [], idWidth: Int? = nil) {
        StandardStreams.writeOutput(
            output.json
                ? report.jsonLines(fullTokens: output.full)
                : report.lines(fullTokens: output.full, excluding: printed, idWidth: idWidth))
        for advice in report.advice { StandardStreams.writeError("\(tool): \(advice)\n") }
        StandardStreams.writeError("\(tool): \(report.summary)\n")
    }

    /// When the environment was given on the command line and some devices have another one
    /// recorded: the recorded one wins, and this says so, naming up to three of them.
    ///
    /// The decision: a device token belongs to one environment, and the registry records the one
    /// APNs accepted it in (or `register-apns --sandbox`/`--production` said), so a flag cannot
    /// make a production token work in the sandbox; it sets the environment of the devices with
    /// none recorded and of `--token` sends. Sending such a device to the other environment would
    /// only earn `400 BadDeviceToken`.
    static func recordedEnvironmentNote(_ chosen: Setting<APNsEnvironment>, targets: [DeliveryTarget]) -> String? {
        guard case .flag(let flag) = chosen.source else { return nil }
        let others = targets.filter { $0.recordedEnvironment.map { $0 != chosen.value } ?? false }
        guard !others.isEmpty else { return nil }
        let other = chosen.value.other.rawValue
        let names = others.prefix(3).map { $0.deviceID ?? $0.token.masked }.joined(separator: ", ")
        let more = others.count > 3 ? " and \(others.count - 3) more" : ""
        let count = others.count == 1 ? "1 device has" : "\(others.count) devices have"
        // How a token of the environment asked for is registered: the build that makes one, and its flag.
        let registering =
            chosen.value == .sandbox
            ? "a debug build's token registers anew with register-apns --sandbox"
            : "a TestFlight or App Store build's token registers anew with register-apns --production"
        return
            "\(flag) (\(chosen.value.rawValue)) applies to devices with no recorded environment; \(count) \(other) "
            + "recorded and \(others.count == 1 ? "is" : "are") sent there: \(names)\(more) (a token belongs to one "
            + "environment; \(registering))"
    }
}
