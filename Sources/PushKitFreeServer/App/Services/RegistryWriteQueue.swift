#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOPosix
import PushKitFreeCore
import PushKitFreeRegistry
import Synchronization

/// Registry changes from concurrent requests, written in batches (group commit).
///
/// A request hands its change here and waits. One writer thread takes every change waiting, applies
/// them all in one `StateFileRegistry.update` (one lock, one read, one fsync'd atomic replace) and
/// then answers each request; changes that arrived meanwhile form the next batch. Under a burst the
/// batches grow instead of the queue, so throughput follows the disk's fsync rate times the batch
/// size, not the fsync rate alone. A request is answered only after the file holding its change is
/// on disk, so a 200 means the registration survives a crash.
///
/// Other processes (`register-apns`, `send-push` pruning) take the same file lock, so nothing any of
/// them writes is lost.
///
/// A large state file's batches go to its journal (`RegistryJournal`); the queue folds the journal
/// into the file once no change has come for `foldDelay`, and when it shuts down.
final class RegistryWriteQueue: Sendable {
    /// One change: applied under the lock to the registry as re-read; returns the request's answer.
    typealias Change = @Sendable (inout RegisteredDevices, Date) -> ChangeResult

    /// What one change did, for the response.
    enum ChangeResult: Sendable {
        case registered(RegisteredDevices.RegistrationOutcome)
        case removed([RegisteredDevice])
        /// The device changed in place (a gateway's `briefing_config`); `nil` when there was none.
        case updated(RegisteredDevice?)
        /// The registry refused this change alone (a name both a device id and a group); nothing
        /// of it was made, and the rest of the batch is written as usual.
        case refused(RegistryError)
    }

    private struct Pending {
        let change: Change
        let continuation: CheckedContinuation<ChangeResult, any Error>
    }

    private struct State {
        var pending: [Pending] = []
        var writing = false
        /// Batches written so far: a fold waits for a `foldDelay` in which this does not move.
        var batches = 0
        /// Whether a task waits to fold the journal.
        var foldScheduled = false
        var stopped = false
        /// Why the last batch could not be written, when it failed on the file system (a full
        /// disk, an I/O error); cleared by the next batch written.
        var writeFailure: RegistryError?
    }

    /// How long without a change before the journal is folded into the state file
    /// (`RegistryTuning.journalIdle`).
    let foldDelay: Duration

    let registry: any RegistryStore
    private let thread: NIOThreadPool
    private let state = Mutex(State())
    private let onBatch: @Sendable (Int) -> Void

    /// - Parameters:
    ///   - foldDelay: how long without a change before the journal is folded.
    ///   - onBatch: told each batch's size after it is written (for metrics).
    init(
        registry: any RegistryStore, foldDelay: Duration = RegistryTuning.defaults.journalIdle,
        onBatch: @escaping @Sendable (Int) -> Void
    ) {
        self.registry = registry
        self.foldDelay = foldDelay
        self.onBatch = onBatch
        thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
    }

    /// Applies `change` in the next batch and returns its result once the batch is on disk.
    /// - Throws: the `RegistryError` of a batch that could not be written (nothing of it was).
    func apply(_ change: @escaping Change) async throws -> ChangeResult {
        try await withCheckedThrowingContinuation { continuation in
            let startWriter = state.withLock { state -> Bool in
                state.pending.append(Pending(change: change, continuation: continuation))
                if state.writing { return false }
                state.writing = true
                return true
            }
            if startWriter {
                thread.submit { _ in self.drain() }
            }
        }
    }

    /// Runs on the writer thread until no change is waiting.
    private func drain() {
        while true {
            let batch = state.withLock { state -> [Pending] in
                let batch = state.pending
                state.pending.removeAll(keepingCapacity: true)
                if batch.isEmpty { state.writing = false }
                return batch
            }
            if batch.isEmpty { return }
            do {
                let now = registry.clock.now()
                let results = try registry.update { devices in batch.map { $0.change(&devices, now) } }
                state.withLock { $0.writeFailure = nil }
                for (pending, result) in zip(batch, results) { pending.continuation.resume(returning: result) }
                onBatch(batch.count)
            } catch {
                if let error = error as? RegistryError, Self.isWriteFailure(error) {
                    state.withLock { $0.writeFailure = error }
                }
                for pending in batch { pending.continuation.resume(throwing: error) }
            }
            state.withLock { $0.batches += 1 }
            scheduleFold()
        }
    }

    /// Why the last batch could not be written, when the file system refused it; `nil` once a
    /// batch is written again (or `clearWriteFailure()` says writes work).
    var writeFailure: RegistryError? { state.withLock { $0.writeFailure } }

    /// Forgets the last batch's failure: a probe found that writing works again.
    func clearWriteFailure() { state.withLock { $0.writeFailure = nil } }

    /// A failure of the file system under the registry (the same for the next batch), not of one
    /// batch's contents or of a program racing it.
    private static func isWriteFailure(_ error: RegistryError) -> Bool {
        switch error {
        case .io, .cannotCreate: true
        default: false
        }
    }

    // MARK: Folding the journal

    /// The state file registry, when it appends to a journal.
    private var journaling: (any RegistryFile)? {
        guard let file = registry.file, file.appendsToJournal else { return nil }
        return file
    }

    /// Starts a task that folds the journal once the queue has been idle for `foldDelay`, unless
    /// one waits already or there is no journal.
    private func scheduleFold() {
        guard let registry = journaling, PosixFile.stamp(of: registry.journalPath) != nil else { return }
        guard
            let seen = state.withLock({ state -> Int? in
                if state.foldScheduled || state.stopped { return nil }
                state.foldScheduled = true
                return state.batches
            })
        else { return }
        Task.detached { [self] in
            var seen = seen
            while true {
                try? await Task.sleep(for: foldDelay)
                // Idle: take the writer's place, so no batch runs during the fold; changes that
                // come meanwhile wait for it, and `drain` takes them after.
                let idle = state.withLock { state -> Bool? in
                    if state.stopped {
                        state.foldScheduled = false
                        return nil
                    }
                    guard state.batches == seen, !state.writing, state.pending.isEmpty else {
                        seen = state.batches
                        return false
                    }
                    state.writing = true
                    state.foldScheduled = false
                    return true
                }
                guard let idle else { return }
                if idle { break }
            }
            thread.submit { _ in
                self.fold(registry)
                self.drain()
            }
        }
    }

    /// Folds the journal into the state file; a failure is reported and leaves the journal, which
    /// stays applied by every reader, for the next fold.
    private func fold(_ registry: any RegistryFile) {
        do throws(RegistryError) {
            _ = try registry.foldJournal()
        } catch {
            StandardStreams.writeError(
                "\(EndpointServer.tool): warning: the journal \(registry.journalPath) was not folded into the state file: \(error)\n"
            )
        }
    }

    /// Stops the writer thread once the changes handed to it are written, and folds the journal.
    func shutdown() async {
        state.withLock { $0.stopped = true }
        try? await thread.shutdownGracefully()
        if let registry = journaling, PosixFile.stamp(of: registry.journalPath) != nil { fold(registry) }
    }
}
