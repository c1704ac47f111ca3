import PushKitFreeCore
import PushKitFreeRegistry
import Synchronization

/// What `GET /health` checks: whether the server can do its job.
///
/// - The state file is readable and parses as a registry (a missing file is an empty registry); a
///   PostgreSQL registry answers (one statement bringing the server's copy up to date).
/// - The last registration batch was written, or, when the file system refused it (a full disk),
///   room for the state file can now be allocated beside it (`StateFileRegistry.checkWritable()`):
///   a server whose every registration fails is not healthy, and becomes so again without one.
/// - When sending is configured (a provider key path is set), sending can work: a topic, a key
///   that loads with its key id and team id, libcurl.
///
/// Each check is redone only when its file changes (`PosixFile.Stamp`: device, inode, size and
/// modification time), so a probe every second costs a `stat` or two, not a parse of a large state
/// file. The problems are worded for an HTTP answer (no paths); when the set of problems changes,
/// the whole story goes to the server's log once, not on every probe.
final class EndpointHealth: Sendable {
    private let registry: any RegistryStore
    private let writes: RegistryWriteQueue
    private let delivery: EndpointDelivery
    private let log: @Sendable (String) -> Void
    private let state = Mutex(State())

    /// One check's result for one identity of its file.
    private struct Verdict {
        var identity: PosixFile.Stamp?
        /// For the answer, and the log.
        var problem: (summary: String, detail: String)?
    }

    private struct State {
        var stateFile: Verdict?
        var sending: Verdict?
        var reported: [String] = []
    }

    init(
        registry: any RegistryStore, writes: RegistryWriteQueue, delivery: EndpointDelivery,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.registry = registry
        self.writes = writes
        self.delivery = delivery
        self.log = log
    }

    /// The problems standing in the way, worded without paths; empty when the server is healthy.
    func problems() -> [String] {
        state.withLock { state in
            var verdicts: [Verdict] = []
            let stateFile = registry.file != nil ? Self.identity(of: registry.location) : .missing
            if registry.file == nil {
                // A database has no identity to cache the verdict by: asked on every probe.
                verdicts.append(Verdict(identity: nil, problem: stateFileProblem()))
            } else if case .failure(let error) = stateFile {
                let problem = ("the state file cannot be examined: \(error.reason)", error.description)
                verdicts.append(Verdict(identity: nil, problem: problem))
            } else if let cached = state.stateFile, cached.identity == stateFile.identity {
                verdicts.append(cached)
            } else {
                let verdict = Verdict(identity: stateFile.identity, problem: stateFileProblem())
                state.stateFile = verdict
                verdicts.append(verdict)
            }
            if let problem = writeProblem() { verdicts.append(Verdict(identity: nil, problem: problem)) }
            if let keyPath = delivery.configuration.keyPath?.value {
                let key = Self.identity(of: keyPath)
                if let cached = state.sending, cached.identity == key.identity, key.identity != nil {
                    verdicts.append(cached)
                } else {
                    let verdict = Verdict(
                        identity: key.identity,
                        problem: delivery.problem().map {
                            ("sending is configured but not possible: \($0.summary)", $0.detail)
                        })
                    state.sending = verdict
                    verdicts.append(verdict)
                }
            }
            let found = verdicts.compactMap(\.problem)
            let summaries = found.map(\.summary)
            if summaries != state.reported {
                state.reported = summaries
                log(
                    found.isEmpty
                        ? "health: healthy again"
                        : "health: unhealthy: " + found.map(\.detail).joined(separator: "; "))
            }
            return summaries
        }
    }

    /// The state file's problem when it is read now.
    private func stateFileProblem() -> (summary: String, detail: String)? {
        do {
            _ = try registry.load()
            return nil
        } catch {
            return (error.publicSummary, error.description)
        }
    }

    /// The file system's refusal of the last batch, unless writing works again now.
    private func writeProblem() -> (summary: String, detail: String)? {
        guard let failure = writes.writeFailure else { return nil }
        if let registry = registry.file {
            do throws(RegistryError) {
                try registry.checkWritable()
                writes.clearWriteFailure()
                return nil
            } catch {
                return ("registrations cannot be written: \(error.publicSummary)", error.description)
            }
        }
        return ("registrations cannot be written: \(failure.publicSummary)", failure.description)
    }

    private enum Examined {
        case found(PosixFile.Stamp)
        case missing
        case failure(FileSystemError)

        var identity: PosixFile.Stamp? {
            if case .found(let identity) = self { return identity }
            return nil
        }
    }

    private static func identity(of path: String) -> Examined {
        do throws(FileSystemError) {
            return try PosixFile.examinedStamp(of: path).map(Examined.found) ?? .missing
        } catch {
            return .failure(error)
        }
    }
}
