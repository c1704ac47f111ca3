import HummingbirdWebSocket
import NIOCore
import NIOWebSocket

/// Joins the frames of one gateway WebSocket message, within two bounds: `sizeLimit` bytes, and
/// `fragmentLimit` frames.
///
/// The size alone does not bound the memory a message takes: empty continuation frames add nothing
/// to it, yet each one that is kept costs the server memory (a client sending 100 MB of them made
/// the server grow by gigabytes). Here the frames' bytes are appended to one buffer as they come,
/// and a message of more than `fragmentLimit` frames ends the connection, as one over `sizeLimit`
/// does.
struct GatewayMessageAssembler {
    /// Frames one message may be sent in: far more than any client splits a 64 KiB message into.
    static let defaultFragmentLimit = 128

    let sizeLimit: Int
    let fragmentLimit: Int
    private var pending: (opcode: WebSocketDataFrame.Opcode, bytes: ByteBuffer, frames: Int)?

    init(sizeLimit: Int, fragmentLimit: Int = Self.defaultFragmentLimit) {
        self.sizeLimit = sizeLimit
        self.fragmentLimit = fragmentLimit
    }

    /// What a frame made of the message being received.
    enum Outcome: Equatable {
        /// More frames are needed.
        case incomplete
        /// The message is whole.
        case message(WebSocketMessage)
        /// The connection must be closed with this code and reason.
        case refused(WebSocketErrorCode, String)
    }

    /// Adds one data frame (text, binary or continuation).
    mutating func add(_ frame: WebSocketDataFrame) -> Outcome {
        var message: (opcode: WebSocketDataFrame.Opcode, bytes: ByteBuffer, frames: Int)
        switch (frame.opcode, pending) {
        case (.continuation, nil):
            return .refused(.protocolError, "a continuation frame without a message to continue")
        case (.continuation, var started?):
            started.frames += 1
            guard started.frames <= fragmentLimit else {
                pending = nil
                return .refused(
                    .messageTooLarge, "a message may be sent in at most \(fragmentLimit) frames")
            }
            var data = frame.data
            guard started.bytes.readableBytes + data.readableBytes <= sizeLimit else {
                pending = nil
                return .refused(.messageTooLarge, "a message may hold at most \(sizeLimit) bytes")
            }
            started.bytes.writeBuffer(&data)
            message = started
        case (_, _?):
            pending = nil
            return .refused(.protocolError, "a new message before the last one's final frame")
        case (let opcode, nil):
            guard frame.data.readableBytes <= sizeLimit else {
                return .refused(.messageTooLarge, "a message may hold at most \(sizeLimit) bytes")
            }
            message = (opcode, frame.data, 1)
        }
        guard frame.fin else {
            pending = message
            return .incomplete
        }
        pending = nil
        return .message(message.opcode == .text ? .text(String(buffer: message.bytes)) : .binary(message.bytes))
    }
}
