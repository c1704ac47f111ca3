#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOPosix
import PushKitFreeCore
import PushKitFreeRegistry
import ServiceLifecycle
import Synchronization

/// Registry changes from concurrent requests, written in batches (group commit): a service of the
/// endpoint's application.
///
/// A request hands its change here and waits. The queue's thread takes every change waiting,
/// applies them all in one `RegistryStore.update` (one lock, one read, one fsync'd atomic replace)
/// and then answers each request with its change's own result; changes that arrived meanwhile
/// form the next batch. Under a burst the batches grow instead of the queue, so throughput follows
/// the disk's fsync rate times the batch size, not the fsync rate alone. A request is answered only
/// after the file holding its change is on disk, so a 200 means the registration survives a crash.
///
/// The writes block (the file lock, fsync), so they run on one thread of the service's own
/// (`NIOThreadPool` of one thread, started and shut down by `run()`), never on the server's event
/// loops or the few threads of Swift's cooperative pool; one thread also keeps the batches and
/// the journal's folds one at a time. Other processes (`register-apns`, `send-push` pruning) take
/// the same file lock, so nothing any of them writes is lost.
///
/// A large state file's batches go to its journal (`RegistryJournal`); the queue folds the journal
/// into the file once no change has come for `foldDelay`, and when it stops. It stops on the
/// application's graceful shutdown, after the server: the changes handed to it are written first.
final class RegistryWriteQueue: Service, Sendable {
    /// One change handed to the loop.
    private struct Pending: Sendable {
        /// Applies the change to the registry as re-read, under the lock; returns what answers its
        /// request once the batch is on disk.
        let apply: @Sendable (inout RegisteredDevices, Date) -> @Sendable () -> Void
        /// Answers the request with the error of a batch that could not be written.
        let fail: @Sendable (any Error) -> Void
    }

    private struct State {
        /// Why the last batch could not be written, when it failed on the file system (a full
        /// disk, an I/O error); cleared by the next batch written.
        var writeFailure: RegistryError?
    }

    /// How long without a change before the journal is folded into the state file
    /// (`RegistryTuning.journalIdle`).
    let foldDelay: Duration

    let registry: any RegistryStore
    private let inbox = WorkInbox<Pending>()
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
    }

    /// Applies `change` in the next batch and returns its result once the batch is on disk.
    /// - Throws: the `RegistryError` of a batch that could not be written (nothing of it was), or
    ///   `RegistryWriteQueue.Stopped` once the queue has stopped.
    func apply<Result: Sendable>(
        _ change: @escaping @Sendable (inout RegisteredDevices, Date) -> Result
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let pending = Pending(
                apply: { devices, now in
                    let result = change(&devices, now)
                    return { continuation.resume(returning: result) }
                },
                fail: { continuation.resume(throwing: $0) })
            if !inbox.add(pending) { continuation.resume(throwing: Stopped()) }
        }
    }

    /// A change handed to the queue after it stopped.
    struct Stopped: Error, CustomStringConvertible {
        var description: String { "the registry's write queue has stopped" }
    }

    /// Reads the state file before the server listens, not at the first registration, giving a
    /// large one its journal base (`RegistryFile.prepareJournal`); a database is left alone (it may
    /// be down at start, which the routes answer 503 for). On a thread of NIO's shared pool.
    func prepare() async {
        guard let file = registry.file else { return }
        try? await NIOThreadPool.singleton.runIfActive { file.prepareJournal() }
    }

    /// Writes the changes handed to the queue until the application's graceful shutdown (or the
    /// task's cancellation); then writes what is still waiting, folds the journal and returns.
    func run() async throws {
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                try? await thread.runIfActive { self.writeUntilClosed() }
            } onGracefulShutdown: {
                self.inbox.close()
            }
        } onCancel: {
            self.inbox.close()
        }
        try? await thread.shutdownGracefully()
    }

    /// The writer's loop, on the queue's own thread: each wait takes every change waiting and
    /// writes it as one batch. After a batch that went to the journal, a wait of `foldDelay` with
    /// no change folds it; once the inbox is closed, the last changes are written and the journal
    /// folded.
    private func writeUntilClosed() {
        var journalWaits = false
        while true {
            let (batch, closed) = inbox.wait(timeout: journalWaits ? foldDelay : nil)
            if !batch.isEmpty {
                write(batch)
                journalWaits = journalExists
            } else if closed {
                break
            } else if let registry = journaling { // idle for foldDelay
                fold(registry)
                journalWaits = false
            }
        }
        if let registry = journaling, journalExists { fold(registry) }
    }

    /// Applies `batch` in one update of the registry and answers each change's request.
    private func write(_ batch: [Pending]) {
        do {
            let now = registry.clock.now()
            let answers = try registry.update { devices in batch.map { $0.apply(&devices, now) } }
            state.withLock { $0.writeFailure = nil }
            for answer in answers { answer() }
            onBatch(batch.count)
        } catch {
            if let error = error as? RegistryError, Self.isWriteFailure(error) {
                state.withLock { $0.writeFailure = error }
            }
            for pending in batch { pending.fail(error) }
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

    /// Whether the state file has a journal waiting to be folded.
    private var journalExists: Bool {
        guard let registry = journaling else { return false }
        return PosixFile.stamp(of: registry.journalPath) != nil
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
}
