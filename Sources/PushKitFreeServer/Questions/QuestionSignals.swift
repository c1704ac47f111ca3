import Synchronization

/// Wake-ups for the requests waiting on a question (`GET /v1/questions/{id}?wait=S`) and for the
/// expiry loop: a change made in this process wakes its waiters at once; a change made by another
/// server on the same store is seen at their next look (`EndpointQuestions.pollInterval`).
final class QuestionSignals: Sendable {
    private let waiters = Mutex<[String: [Int: CheckedContinuation<Void, Never>]]>([:])
    private let counter = Mutex(0)

    /// Returns when `key` is signalled, `duration` passes, or the task is cancelled, whichever comes first.
    func wait(for key: String, upTo duration: Duration) async {
        let ticket = counter.withLock { value in
            value += 1
            return value
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask { await self.signalled(key, ticket: ticket) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Wakes every waiter on `key`.
    func signal(_ key: String) {
        let woken = waiters.withLock { table in table.removeValue(forKey: key) }
        for continuation in (woken ?? [:]).values { continuation.resume() }
    }

    /// How many requests wait now, for the bound on waiting requests.
    var count: Int { waiters.withLock { table in table.values.reduce(0) { $0 + $1.count } } }

    private func signalled(_ key: String, ticket: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let cancelled = waiters.withLock { table -> Bool in
                    if Task.isCancelled { return true }
                    table[key, default: [:]][ticket] = continuation
                    return false
                }
                if cancelled { continuation.resume() }
            }
        } onCancel: {
            let continuation = waiters.withLock { table -> CheckedContinuation<Void, Never>? in
                let removed = table[key]?.removeValue(forKey: ticket)
                if table[key]?.isEmpty == true { table[key] = nil }
                return removed
            }
            continuation?.resume()
        }
    }
}
