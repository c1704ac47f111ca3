@testable import PushKitFreeTransport
import Testing

/// The PING's deadline follows what PINGs' answers took, within its bounds.
@Suite("libcurl transport: the silent-connection watch's deadline")
struct SilenceWatchTests {
    @Test("1 s while answers are quick; four times the slowest lately, decaying; never past 10 s")
    func deadlineFollowsAnswers() {
        var watch = SilenceWatch()
        #expect(watch.pingTimeout == 1000)
        watch.answered(after: 40)
        #expect(watch.pingTimeout == 1000, "a quick answer keeps the floor")
        watch.answered(after: 600)
        #expect(watch.pingTimeout == 2400, "a loaded peer's 600 ms answer gives 2.4 s")
        watch.answered(after: 10)
        #expect(watch.pingTimeout == 2100, "then decays by an eighth per answer: 525 ms")
        for _ in 0..<40 { watch.answered(after: 10) }
        #expect(watch.pingTimeout == 1000, "back to the floor once answers are quick again")
        watch.answered(after: 9000)
        #expect(watch.pingTimeout == 10_000, "at most 10 s")
    }
}
