#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOPosix
import PushKitFreeCore
import Synchronization

/// Registry changes from concurrent requests, written in batches (group commit).
///
/// A request hands its change here and waits. One writer thread takes every change waiting, applies
/// them all in one `DeviceRegistry.update` (one lock, one read, one fsync'd atomic replace) and
/// then answers each request; changes that arrived meanwhile form the next batch. Under a burst the
/// batches grow instead of the queue, so throughput follows the disk's fsync rate times the batch
/// size, not the fsync rate alone. A request is answered only after the file holding its change is
/// on disk, so a 200 means the registration survives a crash.
///
/// Other processes (`register-apns`, `send-push` pruning) take the same file lock, so nothing any of
/// them writes is lost.
final class RegistryWriteQueue: Sendable {
    /// One change: applied under the lock to the registry as re-read; returns the request's answer.
    typealias Change = @Sendable (inout RegisteredDevices, Date) -> ChangeResult

    /// What one change did, for the response.
    enum ChangeResult: Sendable {
        case registered(RegisteredDevices.RegistrationOutcome)
        case removed([RegisteredDevice])
        /// The device changed in place (a gateway's `briefing_config`); `nil` when there was none.
        case updated(RegisteredDevice?)
    }

    private struct Pending {
        let change: Change
        let continuation: CheckedContinuation<ChangeResult, any Error>
    }

    private struct State {
        var pending: [Pending] = []
        var writing = false
    }

    let registry: any RegistryStore
    private let thread: NIOThreadPool
    private let state = Mutex(State())
    private let onBatch: @Sendable (Int) -> Void

    /// - Parameter onBatch: told each batch's size after it is written (for metrics).
    init(registry: any RegistryStore, onBatch: @escaping @Sendable (Int) -> Void) {
        self.registry = registry
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
                for (pending, result) in zip(batch, results) { pending.continuation.resume(returning: result) }
                onBatch(batch.count)
            } catch {
                for pending in batch { pending.continuation.resume(throwing: error) }
            }
        }
    }

    /// Stops the writer thread once the changes handed to it are written.
    func shutdown() async {
        try? await thread.shutdownGracefully()
    }
}
