import PushKitFreeCore
import Synchronization

/// What the emulator remembers across connections: scripted device states (changed at run time by
/// the control surface), per-token fault counters, the random source for `--fail-rate`, counters,
/// and the most recent records for `GET /emulator/requests`. Thread-safe.
final class EmulatorState: Sendable {
    /// How many records `GET /emulator/requests` can return.
    static let recentRecordLimit = 1000

    struct Counters: Sendable {
        var connections = 0
        var requests = 0
        var accepted = 0
        var rejected = 0
    }

    private struct State {
        var devices: ScriptedDeviceStates
        var failFirstCounts: [String: Int] = [:]
        var scriptCounts: [String: Int] = [:]
        var random: SplitMix64
        var counters = Counters()
        var recent: [[UInt8]] = []
        var recentStart = 0
    }

    private let state: Mutex<State>
    private let script: DeviceScript

    init(devices: ScriptedDeviceStates, script: DeviceScript = DeviceScript(), seed: UInt64) {
        state = Mutex(State(devices: devices, random: SplitMix64(seed: seed)))
        self.script = script
    }

    /// Numbers the next connection.
    func nextConnectionNumber() -> Int {
        state.withLock { state in
            state.counters.connections += 1
            return state.counters.connections
        }
    }

    /// The answer for a request that passed validation: an injected failure, a scripted device
    /// state, or `nil` for success. Faults come first, as a failing server answers before it looks
    /// at the device; `--fail-first` counts the accepted requests of each device token.
    func verdict(
        forAccepted deviceToken: String, failFirst: FailFirstFault?, failRate: FailRateFault?
    ) -> (rejection: APNsRejection, timestamp: Int64?, detail: String)? {
        state.withLock { state in
            if let failFirst, failFirst.count > 0 {
                let key = deviceToken.lowercased()
                let seen = state.failFirstCounts[key, default: 0]
                if seen < failFirst.count {
                    state.failFirstCounts[key] = seen + 1
                    return (
                        failFirst.failure.rejection, nil,
                        "--fail-first: request \(seen + 1) of \(failFirst.count) for this token"
                    )
                }
            }
            if let failRate, failRate.probability > 0, state.random.nextUnitInterval() < failRate.probability {
                return (failRate.failure.rejection, nil, "--fail-rate \(failRate.probability)")
            }
            if let answer = state.devices.answer(for: deviceToken) {
                let detail =
                    switch answer.rejection.reason {
                    case .unregistered: "scripted: unregistered"
                    case .expiredToken: "scripted: expired token"
                    default: "scripted: token of the other environment"
                    }
                return (answer.rejection, answer.timestamp, detail)
            }
            return nil
        }
    }

    /// The `--script-file` step for the next valid request to `deviceToken`, counting it; `nil` when
    /// the token has no script.
    func scriptStep(forAccepted deviceToken: String) -> DeviceScript.Step? {
        if script.isEmpty { return nil }
        let key = deviceToken.lowercased()
        return state.withLock { state -> DeviceScript.Step? in
            guard script.step(for: key, index: 0) != nil else { return nil }
            let index = state.scriptCounts[key, default: 0]
            state.scriptCounts[key] = index + 1
            return script.step(for: key, index: index)
        }
    }

    /// Whether `token` is scripted unregistered (an FCM registration token answers `UNREGISTERED`).
    func isUnregistered(_ token: String) -> Bool {
        state.withLock { $0.devices.unregistered[token.lowercased()] != nil }
    }

    /// Marks `token` unregistered at `timestamp` (ms); returns the timestamp.
    func unregister(_ token: String, at timestamp: Int64) {
        state.withLock { $0.devices.unregister(token, at: timestamp) }
    }

    /// Clears any scripted state of `token`; returns whether it had one.
    func register(_ token: String) -> Bool {
        state.withLock { $0.devices.register(token) }
    }

    /// Counts an answered request and keeps its record line for `GET /emulator/requests`.
    func didAnswer(accepted: Bool, recordLine: [UInt8]) {
        state.withLock { state in
            state.counters.requests += 1
            if accepted { state.counters.accepted += 1 } else { state.counters.rejected += 1 }
            if state.recent.count < Self.recentRecordLimit {
                state.recent.append(recordLine)
            } else {
                state.recent[state.recentStart] = recordLine
                state.recentStart = (state.recentStart + 1) % Self.recentRecordLimit
            }
        }
    }

    /// The kept record lines, oldest first.
    func recentRecords() -> [UInt8] {
        state.withLock { state in
            var bytes: [UInt8] = []
            for offset in 0..<state.recent.count {
                bytes.append(contentsOf: state.recent[(state.recentStart + offset) % state.recent.count])
            }
            return bytes
        }
    }

    /// The kept record lines one by one, oldest first (what `POST /emulator/answer` searches).
    func recentRecordLines() -> [[UInt8]] {
        state.withLock { state in
            (0..<state.recent.count).map { state.recent[(state.recentStart + $0) % state.recent.count] }
        }
    }

    /// The counters and scripted states, for `GET /emulator/status`.
    func snapshot() -> (counters: Counters, devices: ScriptedDeviceStates) {
        state.withLock { ($0.counters, $0.devices) }
    }
}
