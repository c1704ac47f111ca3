/// Indices waiting to be resent at once, first in first out.
struct ResendQueue {
    private var items: [Int] = []
    private var head = 0
    mutating func append(_ index: Int) { items.append(index) }
    mutating func popFirst() -> Int? {
        guard head < items.count else { return nil }
        defer { head += 1 }
        return items[head]
    }
}

/// Indices waiting out their back-off, by the time they are due.
struct RetrySchedule {
    private var entries: [(due: ContinuousClock.Instant, index: Int)] = []
    var nextDue: ContinuousClock.Instant? { entries.first?.due }
    mutating func add(_ index: Int, due: ContinuousClock.Instant) {
        let position = entries.firstIndex { $0.due > due } ?? entries.count
        entries.insert((due, index), at: position)
    }
    mutating func popDue(at now: ContinuousClock.Instant) -> Int? {
        guard let first = entries.first, first.due <= now else { return nil }
        entries.removeFirst()
        return first.index
    }
}
