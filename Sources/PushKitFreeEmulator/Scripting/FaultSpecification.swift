import PushKitFreeCore

/// An injected failure the emulator answers instead of the real one: `STATUS:REASON`.
package struct InjectedFailure: Sendable, Hashable {
    /// The status and reason answered.
    package let rejection: APNsRejection

    /// A failure answering `status` with `reason`.
    package init(status: Int, reason: APNsReason) {
        rejection = APNsRejection(status: status, reason: reason)
    }

    /// Parses the `STATUS:REASON` part of a fault flag, e.g. `500:InternalServerError`.
    static func parse(_ text: Substring, flag: String) throws(FaultSpecificationError) -> InjectedFailure {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let status = Int(parts[0]), (400...599).contains(status) else {
            throw FaultSpecificationError(
                "\(flag): the status in \"\(text)\" must be an HTTP error status from 400 to 599")
        }
        let reason = String(parts[1])
        guard !reason.isEmpty, reason.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw FaultSpecificationError(
                "\(flag): the reason in \"\(text)\" must be a word of letters and digits, e.g. InternalServerError")
        }
        return InjectedFailure(status: status, reason: APNsReason(rawValue: reason))
    }
}

/// `--fail-first N:STATUS:REASON`: the first N accepted requests to each device token fail.
package struct FailFirstFault: Sendable, Hashable {
    /// How many requests per device token fail.
    package let count: Int
    /// What those requests are answered.
    package let failure: InjectedFailure

    /// Parses `N:STATUS:REASON`, e.g. `2:429:TooManyRequests`.
    package init(argument: String) throws(FaultSpecificationError) {
        let parts = argument.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[0]), count >= 0 else {
            throw FaultSpecificationError(
                "--fail-first must be N:STATUS:REASON with N a count, e.g. 1:500:InternalServerError, not \"\(argument)\""
            )
        }
        self.count = count
        failure = try InjectedFailure.parse(parts[1], flag: "--fail-first")
    }
}

/// `--fail-rate P:STATUS:REASON`: each accepted request fails with probability P.
package struct FailRateFault: Sendable, Hashable {
    /// The probability, 0 to 1.
    package let probability: Double
    /// What a failing request is answered.
    package let failure: InjectedFailure

    /// Parses `P:STATUS:REASON` with P a fraction (`0.1`) or a percentage (`10%`).
    package init(argument: String) throws(FaultSpecificationError) {
        let parts = argument.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        var probability: Double?
        if parts.count == 2 {
            if parts[0].hasSuffix("%") {
                probability = Double(parts[0].dropLast()).map { $0 / 100 }
            } else {
                probability = Double(parts[0])
            }
        }
        guard let probability, probability >= 0, probability <= 1 else {
            throw FaultSpecificationError(
                "--fail-rate must be P:STATUS:REASON with P from 0 to 1 (or 0% to 100%), e.g. 0.1:503:ServiceUnavailable, not \"\(argument)\""
            )
        }
        self.probability = probability
        failure = try InjectedFailure.parse(parts[1], flag: "--fail-rate")
    }
}

/// A malformed fault flag; a usage error (exit 64).
package struct FaultSpecificationError: PushKitError {
    /// The message, naming the flag and the form its value should take.
    package let message: String
    /// Always 64: the flag is at fault.
    package var exitStatus: ExitStatus { .usage }
    /// An error with a short, lowercase message.
    package init(_ message: String) { self.message = message }
    /// The message.
    package var description: String { message }
}
