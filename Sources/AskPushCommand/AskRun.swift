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
import PushKitFreeCLI
import PushKitFreeCore
import PushKitFreeTransport

/// One `ask-push`: posts the question, waits for it to be settled, prints the answer, and
/// returns the exit status (0 answered, 2 expired, 3 cancelled, 128 + signal when interrupted).
///
/// Waiting is a loop of `GET /v1/questions/{id}?wait=55`. When serve cannot be reached (a
/// restart) or answers 429/502/503/504, the loop tries again with a growing pause, until `grace`
/// after the question's expiry: serve keeps the question, so its state is there once serve is.
/// Nothing turns a question that was not answered into an answer.
struct AskRun {
    /// What goes to standard output.
    enum Output {
        /// The choice's id or the typed text.
        case answer
        /// The final status, as JSON.
        case status
        /// The question's id, at once.
        case id
        /// Serve's answer to the question (`id`, `expires_at`, `devices`) as JSON, at once.
        case asked
    }

    let client: QuestionsClient
    let tool: String
    let interruption = RunInterruption.process
    /// How long after the question's expiry an unreachable serve is still waited for.
    var grace: Duration = .seconds(30)
    /// The longest pause between tries while serve is unreachable.
    var longestPause: Duration = .seconds(10)

    /// A run against the endpoint `configuration` names.
    /// - Throws: `ConfigurationError` (78) for a missing endpoint or secret, `LibcurlUnavailable` (69).
    init(configuration: Configuration, tool: String) throws {
        let access = try EndpointAccess.resolve(configuration)
        for warning in access.warnings { ToolSupport.warn(warning, tool: tool) }
        client = try QuestionsClient(
            access: access, caFile: configuration.caFile?.value, proxy: configuration.proxy?.value)
        self.tool = tool
        secretFile = access.secretFile
    }

    /// Where the secret came from, for the message when serve refuses it.
    private let secretFile: Setting<String>

    /// Asks `question`, waits, prints `output`; returns the exit status.
    func ask(_ question: QuestionSpecification, printing output: Output) throws -> Int32 {
        InterruptSignals.watch()
        defer { InterruptSignals.stop() }
        let asked: [String: JSONValue]
        do {
            asked = try client.ask(question.requestBody)
        } catch {
            throw worded(error)
        }
        guard let id = asked["id"]?.stringValue else {
            throw QuestionStatusError("serve's answer to the question names no id")
        }
        if let signal = interruption.signal { return cancel(id, after: signal) }
        switch output {
        case .id:
            StandardStreams.writeOutput(id + "\n")
            return 0
        case .asked:
            StandardStreams.writeOutput(JSONValue.object(asked).serializedString() + "\n")
            return 0
        case .answer, .status:
            break
        }
        let expiresAt =
            asked["expires_at"]?.stringValue.flatMap(ISO8601Timestamp.parse)
            ?? Date().addingTimeInterval(TimeInterval(question.timeout))
        let giveUpAt = expiresAt.addingTimeInterval(Double(grace.components.seconds))

        var pause: Duration = .milliseconds(500)
        var warned = false
        while true {
            if let signal = interruption.signal { return cancel(id, after: signal) }
            let object: [String: JSONValue]
            let asked = ContinuousClock.now
            do {
                object = try client.status(of: id, wait: QuestionsClient.longestWait) { interruption.signal != nil }
            } catch let error as EndpointClientError where error.kind == .interrupted {
                continue
            } catch {
                guard Self.isPassing(error), Date() < giveUpAt else { throw worded(error) }
                if !warned {
                    ToolSupport.warn(
                        "\(TerminalText.escaped("\(error)")); trying again until the question expires", tool: tool)
                    warned = true
                }
                sleep(for: pause)
                pause = min(pause * 2, longestPause)
                continue
            }
            if warned {
                ToolSupport.warn("\(client.baseURL) answers again", tool: tool)
                warned = false
            }
            pause = .milliseconds(500)
            let status = try QuestionStatus(object)
            guard status.state != .pending else {
                // A serve that answers pending at once (not holding the request) is asked once a second.
                sleep(for: .seconds(1) - (ContinuousClock.now - asked))
                continue
            }
            return settle(status, object: object, printing: output)
        }
    }

    /// Prints what `status` says and returns its exit status.
    private func settle(_ status: QuestionStatus, object: [String: JSONValue], printing output: Output) -> Int32 {
        if case .status = output { StandardStreams.writeOutput(JSONValue.object(object).serializedString() + "\n") }
        switch status.state {
        case .answered:
            if case .answer = output {
                let text: String
                switch status.answer {
                case .choice(let id): text = id
                case .text(let typed): text = typed
                case nil: text = "" // not reached: a status answered without an answer is refused
                }
                // Typed text goes out as typed to a pipe; a terminal gets its control characters escaped.
                let shown = isatty(STDOUT_FILENO) == 1 ? TerminalText.escapedKeepingLines(text) : text
                StandardStreams.writeOutput(shown + "\n")
            }
            return 0
        case .expired:
            StandardStreams.writeError("\(tool): nobody answered before the question expired\n")
            return ExitStatus.expired.rawValue
        case .cancelled:
            StandardStreams.writeError("\(tool): the question was cancelled\n")
            return ExitStatus.cancelled.rawValue
        case .pending:
            return ExitStatus.temporaryFailure.rawValue // not reached: pending is waited on
        }
    }

    /// Cancels question `id` after `signal`, so the phone's buttons are withdrawn; returns 128 + signal.
    private func cancel(_ id: String, after signal: Int32) -> Int32 {
        let name = InterruptSignals.name(of: signal)
        do {
            _ = try client.cancel(id)
            StandardStreams.writeError("\(tool): \(name): the question was cancelled\n")
        } catch let refusal as EndpointRefusal where refusal.status == 409 {
            let state = refusal.body?["state"]?.stringValue ?? "settled"
            StandardStreams.writeError("\(tool): \(name): the question was already \(state); nothing to cancel\n")
        } catch {
            StandardStreams.writeError(
                "\(tool): \(name): the question could not be cancelled (\(TerminalText.escaped("\(error)"))); "
                    + "it stays open on the phone until it expires\n")
        }
        return InterruptSignals.exitStatus(for: signal)
    }

    /// Whether waiting for the question may go on after `error`.
    private static func isPassing(_ error: any Error) -> Bool {
        if let error = error as? EndpointClientError { return error.isPassing }
        if let error = error as? EndpointRefusal { return error.isPassing }
        return false
    }

    /// `error` in `ask-push`'s words: a refused secret names the file it came from.
    private func worded(_ error: any Error) -> any Error {
        guard let refusal = error as? EndpointRefusal, refusal.refusedSecret else { return error }
        return ConfigurationError(
            "the secret in \(secretFile.value) (\(secretFile.source)) was refused by \(client.baseURL) "
                + "(HTTP \(refusal.status): \(refusal.message))")
    }

    /// Sleeps `duration`, waking early when a signal is recorded.
    private func sleep(for duration: Duration) {
        let end = ContinuousClock.now + duration
        while interruption.signal == nil, ContinuousClock.now < end { usleep(100_000) }
    }

    /// Runs `body` and returns its exit status; an error is printed as `tool: error: message` and
    /// mapped to its status (70 for an unexpected one).
    static func report(tool: String, _ body: () throws -> Int32) -> Int32 {
        do {
            return try body()
        } catch let error as any PushKitError {
            StandardStreams.writeError("\(tool): error: \(ToolSupport.message(for: error))\n")
            return error.exitStatus.rawValue
        } catch {
            StandardStreams.writeError("\(tool): error: unexpected error: \(error)\n")
            return 70
        }
    }
}
