import Foundation
@testable import PushKitFreeServer
import Testing

/// The hand-over between requests and a service's own thread: every item waiting is taken at once,
/// a wait ends on an item, on close or on its timeout, and a closed inbox hands over what is left.
@Suite("serve: the services' inbox")
struct WorkInboxTests {
    @Test("a wait takes every item waiting, oldest first")
    func takesAll() {
        let inbox = WorkInbox<Int>()
        #expect(inbox.add(1))
        #expect(inbox.add(2))
        let (items, closed) = inbox.wait(timeout: .seconds(5))
        #expect(items == [1, 2])
        #expect(!closed)
    }

    @Test("a wait with nothing to take ends at its timeout, empty and open")
    func timesOut() {
        let inbox = WorkInbox<Int>()
        let (items, closed) = inbox.wait(timeout: .milliseconds(20))
        #expect(items.isEmpty)
        #expect(!closed)
    }

    @Test("an item added from another thread wakes a thread waiting without a limit")
    func wakesWaiter() async {
        let inbox = WorkInbox<Int>()
        let waiter = Task.detached { inbox.wait(timeout: nil) }
        #expect(inbox.add(7))
        let (items, closed) = await waiter.value
        #expect(items == [7])
        #expect(!closed)
    }

    @Test("closed, it refuses new items, hands over the ones left, then says closed at once")
    func closes() {
        let inbox = WorkInbox<Int>()
        #expect(inbox.add(1))
        inbox.close()
        #expect(!inbox.add(2))
        let first = inbox.wait(timeout: nil)
        #expect(first.items == [1])
        #expect(first.closed)
        let second = inbox.wait(timeout: nil)
        #expect(second.items.isEmpty)
        #expect(second.closed)
    }
}
