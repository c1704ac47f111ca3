/// Watches one service (an APNs environment, FCM) for a failure that is the same for every device
/// before it answered anything in the run: `PushDelivery.systemicThreshold` requests in a row that
/// end in the same TLS or connect failure (an untrusted certificate, a name that does not resolve, a
/// refused connection). Failures are the same when their kind and libcurl's code are: messages
/// differ in timings. Shared by `PushDelivery` and `FCMDelivery`.
struct UnreachableWatch {
    /// Whether the service gave an HTTP answer in this run: then it is reachable.
    private var answered = false
    /// The last transport failure and how many requests in a row ended in it.
    private var streak: (kind: TransportFailure.Kind, code: Int32, count: Int)?

    /// Notes a request that got no answer; the stop, when this failure makes the streak long enough.
    mutating func note(_ failure: TransportFailure) -> DeliveryStop? {
        guard failure.kind == .tls || failure.kind == .connect, failure.code != 0, !answered else { return nil }
        let same = streak?.kind == failure.kind && streak?.code == failure.code
        let count = same ? (streak?.count ?? 0) + 1 : 1
        streak = (failure.kind, failure.code, count)
        return count >= PushDelivery.systemicThreshold ? .transport(failure.kind, message: failure.message) : nil
    }

    /// Notes an HTTP answer: the service is reachable, and no streak counts any more.
    mutating func noteAnswer() {
        answered = true
        streak = nil
    }
}
