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

/// What every connection of one emulator shares: the configuration, the run-time state, the
/// token-update tracker and the outputs.
final class EmulatorServices: Sendable {
    let configuration: EmulatorConfiguration
    let state: EmulatorState
    /// `nil` with `--lenient-token-updates`.
    let tokenUpdates: ProviderTokenUpdateTracker?
    /// The `--record` output.
    let records: OutputBuffer
    /// One-line summaries on standard error; `nil` with `--quiet`.
    let summaries: OutputBuffer?

    init(configuration: EmulatorConfiguration, records: OutputBuffer, summaries: OutputBuffer?) {
        self.configuration = configuration
        state = EmulatorState(devices: configuration.deviceStates, script: configuration.deviceScript, seed: configuration.seed ?? UInt64.random(in: 0...UInt64.max))
        tokenUpdates = configuration.lenientTokenUpdates ? nil
            : ProviderTokenUpdateTracker(rule: configuration.globalTokenUpdates ? .global : .perConnection)
        self.records = records
        self.summaries = summaries
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
        if let error = error as? ChannelError, error == .ioOnClosedChannel || error == .eof || error == .alreadyClosed { return true }
        if let error = error as? IOError, [ECONNRESET, EPIPE].contains(error.errnoCode) { return true }
        return false
    }
}
