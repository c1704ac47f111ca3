import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded

/// Builds one connection's pipeline, and passes one request through it, on an in-memory channel
/// before the server listens, so that the generic types a connection is made of exist before two
/// event loops build their first connections at once.
///
/// Swift's runtime creates a generic type's metadata the first time it is asked for, and 6.3.1's
/// can crash when two threads ask for the same one at the same moment: `register-apns serve`, whose
/// first connections arrived on both event loops together, once died in
/// `swift_getTypeByMangledName` for `ByteToMessageHandler<HTTPRequestDecoder>` (null pointer in
/// `isCanonicalStaticallySpecializedGenericMetadata`, building SwiftNIO's HTTP pipeline), about
/// one start in a hundred under the crash tests' load. Asked once, on one thread, each type is made
/// and later requests only read it.
enum PipelineWarmUp {
    /// Sets `child` up on an embedded channel from 127.0.0.1 and feeds it `GET /health/live`;
    /// the channel is closed afterwards. Failures are ignored: this only makes types exist.
    static func run<Child: ServerChildChannel>(_ child: Child, logger: Logger) {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        guard (try? channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()) != nil,
            (try? child.setup(channel: channel, logger: logger).wait()) != nil
        else { return }
        _ = try? channel.writeInbound(ByteBuffer(string: "GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n"))
        channel.embeddedEventLoop.run()
        try? channel.close().wait()
    }
}
