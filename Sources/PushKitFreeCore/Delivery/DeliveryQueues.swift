/// Which device a delivery sends to next, shared by every transport's delivery (`PushDelivery`,
/// `FCMDelivery`): resends due at once first (a replaced token, the other environment), then those
/// whose back-off is over, then each device's first send in order. A device waits out its own
/// back-off while the others' requests are in flight.
struct SendQueue {
    /// What the queue has at a given moment.
    enum Next {
        /// Send to the device at this index now.
        case send(Int)
        /// Nothing now: tell the transport this (ask again at a time, or only after an answer).
        case wait(HTTP2RequestSupply)
    }

    private var firstSends: Range<Int>.Iterator
    private var resendNow: [Int] = []
    private var resendHead = 0
    /// Devices waiting out their back-off, by the time they are due.
    private var scheduled: [(due: ContinuousClock.Instant, index: Int)] = []
    /// Back-offs decided by answers, timed from the transport's clock when it next asks.
    private var backoffs: [(index: Int, delay: Duration)] = []

    /// A queue of `count` devices, each to be sent to once.
    init(count: Int) {
        firstSends = (0..<count).makeIterator()
    }

    /// Sends to the device at `index` again, as soon as the transport has room.
    mutating func resend(_ index: Int) { resendNow.append(index) }

    /// Sends to the device at `index` again after `delay`, timed from when the transport next asks;
    /// dropped if that is past the run's deadline (the device keeps its last result).
    mutating func resend(_ index: Int, after delay: Duration) { backoffs.append((index, delay)) }

    /// The next device due at `now`.
    mutating func next(at now: ContinuousClock.Instant, deadline: ContinuousClock.Instant) -> Next {
        for backoff in backoffs where now + backoff.delay < deadline {
            let due = now + backoff.delay
            let position = scheduled.firstIndex { $0.due > due } ?? scheduled.count
            scheduled.insert((due, backoff.index), at: position)
        }
        backoffs.removeAll()
        if resendHead < resendNow.count {
            defer { resendHead += 1 }
            return .send(resendNow[resendHead])
        }
        if let first = scheduled.first, first.due <= now {
            scheduled.removeFirst()
            return .send(first.index)
        }
        if let index = firstSends.next() { return .send(index) }
        return .wait(scheduled.first.map { .notBefore($0.due) } ?? .exhausted)
    }
}
