#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOSSL
import PushKitFreeCore
import Synchronization

/// What every connection of one emulator shares: the configuration, the run-time state, the
/// token-update tracker and the outputs.
final class EmulatorServices: Sendable {
    let configuration: EmulatorConfiguration
    let state: EmulatorState
    /// `nil` with `--lenient-token-updates`.
    let tokenUpdates: ProviderTokenUpdateTracker?
    /// The broadcast channels, shared by both listeners.
    let channels: EmulatorChannels
    /// Judges broadcasts and channel management requests.
    let channelJudge: ChannelRequestJudge
    /// Google's FCM routes; `nil` when the configuration has no service account.
    let fcm: FCMEndpoint?
    /// Plays the app answering a recorded question (`POST /emulator/answer`).
    let phone: EmulatorPhone
    /// The `--record` output.
    let records: OutputBuffer
    /// One-line summaries on standard error; `nil` with `--quiet`.
    let summaries: OutputBuffer?
    /// The silencer of every open connection, by connection number, for `POST /emulator/go-silent`.
    private let silencers = Mutex<[Int: NIOLoopBound<ConnectionSilencer>]>([:])
    /// Whether a connection has gone silent for `--go-silent-after` (only one ever does).
    private let silentAfterUsed = Atomic<Bool>(false)

    /// - Parameter answerTrust: CA certificates trusted, besides the system's, by `POST /emulator/answer`.
    init(
        configuration: EmulatorConfiguration, answerTrust: [NIOSSLCertificate] = [], records: OutputBuffer,
        summaries: OutputBuffer?
    ) {
        self.configuration = configuration
        state = EmulatorState(
            devices: configuration.deviceStates, script: configuration.deviceScript,
            seed: configuration.seed ?? UInt64.random(in: 0...UInt64.max))
        tokenUpdates =
            configuration.lenientTokenUpdates
            ? nil
            : ProviderTokenUpdateTracker(rule: configuration.globalTokenUpdates ? .global : .perConnection)
        self.records = records
        self.summaries = summaries
        channels = EmulatorChannels(limit: configuration.channelLimit)
        let state = self.state
        fcm = configuration.fcm.map { FCMEndpoint(account: $0.account, tokenURI: $0.tokenURI, state: state) }
        var note: (@Sendable (String) -> Void)?
        if let summaries {
            note = { message in
                summaries.append("apns-emulator: \(message)\n")
                summaries.flush()
            }
        }
        phone = EmulatorPhone(state: state, poster: AnswerPoster(additionalTrust: answerTrust), note: note)
        channelJudge = ChannelRequestJudge(
            trust: configuration.trust, channels: channels, strict: configuration.strictBroadcast)
    }

    /// Keeps `silencer` reachable for `silenceOpenConnections` until its connection closes.
    func track(_ silencer: ConnectionSilencer, connection: Int, channel: any Channel) {
        let bound = NIOLoopBound(silencer, eventLoop: channel.eventLoop)
        silencers.withLock { $0[connection] = bound }
        channel.closeFuture.whenComplete { [self] _ in
            _ = silencers.withLock { $0.removeValue(forKey: connection) }
        }
    }

    /// Makes every open connection but `except` go silent (each on its own event loop); returns
    /// how many there were.
    func silenceOpenConnections(except: Int) -> Int {
        let targets = silencers.withLock { $0.filter { $0.key != except } }
        for (connection, bound) in targets {
            bound.eventLoop.execute { [self] in
                guard !bound.value.isSilent else { return }
                bound.value.silence()
                note("connection \(connection) went silent (POST /emulator/go-silent)")
            }
        }
        return targets.count
    }

    /// Claims the one silence `--go-silent-after` allows; `true` for the first caller only.
    func claimSilenceAfter() -> Bool {
        silentAfterUsed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
    }

    /// A line on standard error about the emulator's own doing (unless `--quiet`).
    func note(_ message: String) {
        guard let summaries else { return }
        summaries.append("apns-emulator: \(message)\n")
        summaries.flush()
    }

    /// Writes the queued records and summaries (called before responses are flushed).
    func flushOutputs() {
        records.flush()
        summaries?.flush()
    }

    /// Shows a connection-level problem on standard error (unless `--quiet`), leaving out the
    /// ordinary ways clients hang up.
    func report(_ error: any Error, connection: Int) {
        guard let summaries, !Self.isOrdinaryDisconnect(error) else { return }
        summaries.append("apns-emulator: connection \(connection): \(error)\n")
        summaries.flush()
    }

    private static func isOrdinaryDisconnect(_ error: any Error) -> Bool {
        if let error = error as? NIOSSLError, case .uncleanShutdown = error { return true }
        if let error = error as? ChannelError, error == .ioOnClosedChannel || error == .eof || error == .alreadyClosed {
            return true
        }
        if let error = error as? IOError, [ECONNRESET, EPIPE].contains(error.errnoCode) { return true }
        return false
    }
}
