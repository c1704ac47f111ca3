#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A parser family that takes outside input, fuzzed by `fuzz-<rawValue>` with the corpus in
/// `Fuzz/Corpus/<rawValue>/`, and replayed by the main package's `FuzzCorpusReplayTests`.
///
/// `check(_:)` feeds one input to the same public entry points the tools use. Every family asks
/// for the same things: no crash, no hang, and either a parse or a typed error with a message;
/// families with an encoder also ask that what was written reads back the same.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The device registry's state file (`RegisteredDevices(stateFile:)`) and `register-apns import`.
    case stateFile = "state-file"
    /// The config file, resolved into settings and the notification policy.
    case config
    /// `send-push --payload-file`: a complete payload or a simulator `.apns` file.
    case payload
    /// `send-push --data`, one value per NUL-separated part of the input.
    case data
    /// `register-apns add --from-json` bodies (one object, an array, or JSON Lines).
    case registration
    /// The JSON bodies of every `register-apns serve` route, and request paths.
    case endpoint
    /// APNs' error answers (`{"reason": ..., "timestamp": ...}`) as delivery reads them.
    case apnsError = "apns-error"
    /// The provider key (`.p8` PEM) and the tokens it signs.
    case providerKey = "provider-key"
    /// `apns-emulator`'s request validation: method, path, headers (provider token included) and body.
    case emulatorRequest = "emulator-request"

    /// Runs one input.
    /// - Throws: `FuzzViolation` when a property does not hold (a crash or hang is found by
    ///   libFuzzer itself).
    public func check(_ input: [UInt8]) throws(FuzzViolation) {
        switch self {
        case .stateFile: try Self.checkStateFile(input)
        case .config: try Self.checkConfiguration(input)
        case .payload: try Self.checkPayload(input)
        case .data: try Self.checkData(input)
        case .registration: try Self.checkRegistration(input)
        case .endpoint: try Self.checkEndpoint(input)
        case .apnsError: try Self.checkAPNsError(input)
        case .providerKey: try Self.checkProviderKey(input)
        case .emulatorRequest: try Self.checkEmulatorRequest(input)
        }
    }

    /// The instant every target judges dates against (2024-05-01T12:00:00Z), so a corpus file
    /// means the same on every run.
    static let now = Date(timeIntervalSince1970: 1_714_564_800)
}

/// A property a fuzz target asks for did not hold for one input.
public struct FuzzViolation: Error, Sendable, CustomStringConvertible {
    /// Which property, and what was seen instead.
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// Fails unless `condition` holds.
    static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzViolation) {
        if !condition { throw FuzzViolation(message()) }
    }

    /// Fails unless a refusal carries a message: the user must learn what was wrong.
    static func requireMessage(_ message: String, from parser: String) throws(FuzzViolation) {
        try require(message.contains { !$0.isWhitespace }, "\(parser) refused the input without a message")
    }
}
