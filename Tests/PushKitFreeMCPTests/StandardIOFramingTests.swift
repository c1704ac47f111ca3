import Foundation
import MCP
import Testing

@testable import PushKitFreeMCP

@Suite("standard input framing: lines in linear time, a limit, every request answered")
struct StandardIOFramingTests {
    /// The events of `text` pushed in chunks of `size` bytes, then the end of input.
    func frame(_ text: String, limit: Int = 8, chunk size: Int) -> [LineFramer.Event] {
        var framer = LineFramer(limit: limit)
        let bytes = Array(text.utf8)
        var events: [LineFramer.Event] = []
        for start in stride(from: 0, to: bytes.count, by: size) {
            bytes[start..<min(start + size, bytes.count)].withUnsafeBytes { events += framer.push($0) }
        }
        return events + framer.finish()
    }

    func line(_ text: String) -> LineFramer.Event { .line(Data(text.utf8)) }

    @Test("lines split anywhere across chunks come out whole; empty lines are skipped; a last line needs no LF")
    func lines() {
        for size in [1, 2, 3, 5, 64] {
            #expect(
                frame("ab\n\ncdef\r\ngh", chunk: size) == [line("ab"), line("cdef\r"), line("gh")], "chunk \(size)")
        }
    }

    @Test("a line over the limit is reported once, as soon as it passes it, and skipped to its LF; the next is read")
    func overlong() {
        for size in [1, 4, 7, 100] {
            #expect(
                frame("12345678\n123456789012345678901234\nok\n123456789", chunk: size)
                    == [line("12345678"), .overlong, line("ok"), .overlong], "chunk \(size)")
        }
        // Reported before the line ends: the framer need not wait for an LF that may never come.
        var framer = LineFramer(limit: 4)
        Array("123456".utf8).withUnsafeBytes { #expect(framer.push($0) == [.overlong]) }
        Array("7890\nab".utf8).withUnsafeBytes { #expect(framer.push($0).isEmpty) }
        #expect(framer.finish() == [line("ab")])
    }

    @Test("an 8 MB line in 64 KiB chunks, the way standard input gives it: each chunk is looked at once")
    func longLine() {
        var framer = LineFramer(limit: 1 << 20)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
        var events: [LineFramer.Event] = []
        for _ in 0..<128 { chunk.withUnsafeBytes { events += framer.push($0) } }
        Array("\n{}\n".utf8).withUnsafeBytes { events += framer.push($0) }
        #expect(events == [.overlong, line("{}")])
    }

    @Test("requests count until answered or cancelled; the end comes when input has ended and none is left")
    func pendingRequests() {
        let pending = PendingRequests()
        let request = Data(#"{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {}}"#.utf8)
        let named = Data(#"{"jsonrpc": "2.0", "id": "a", "method": "ping"}"#.utf8)
        #expect(PendingRequests.requestID(of: request) == .number(7))
        #expect(PendingRequests.requestID(of: named) == .string("a"))
        #expect(
            PendingRequests.requestID(of: Data(#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#.utf8))
                == nil)
        #expect(PendingRequests.answerID(of: Data(#"{"jsonrpc":"2.0","id":7,"result":{}}"#.utf8)) == .number(7))
        #expect(PendingRequests.answerID(of: request) == nil)
        let cancel = Data(
            #"{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "a"}}"#.utf8)
        #expect(PendingRequests.cancelledID(of: cancel) == .string("a"))

        pending.received(.number(7))
        pending.received(.string("a"))
        #expect(!pending.endInput(), "two requests wait for their answers")
        #expect(!pending.settled(.number(8)), "an answer to no request read changes nothing")
        #expect(!pending.settled(.string("a")))
        #expect(pending.settled(.number(7)), "the last answer after the end: time to stop")
        #expect(PendingRequests().endInput(), "no request: stop at the end of input")
    }

    @Test("a refused line's answer: a JSON-RPC error with a null id")
    func errorAnswer() throws {
        let answer = StandardIOTransport.errorAnswer(.invalidRequest("too long"))
        let object = try #require(try JSONSerialization.jsonObject(with: answer) as? [String: Any])
        #expect(object["jsonrpc"] as? String == "2.0" && object["id"] is NSNull)
        #expect((object["error"] as? [String: Any])?["code"] as? Int == -32600)
        #expect((object["error"] as? [String: Any])?["message"] as? String == "Invalid Request: too long")
    }
}
