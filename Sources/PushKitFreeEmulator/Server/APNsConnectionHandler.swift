#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHPACK
import NIOHTTP2
import PushKitFreeCore

/// Serves one HTTP/2 connection at the frame level: collects each stream's headers and body,
/// judges the request like APNs, and answers on the same stream.
///
/// Working on frames (no child channel per stream) keeps a request to a few dictionary operations,
/// which is what lets one connection carry tens of thousands of requests a second. Because of
/// that, this handler also returns the connection's flow-control window to the client itself.
final class APNsConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// A stream whose request has not been answered yet.
    private struct PendingRequest {
        var headers: HPACKHeaders
        var body: ByteBuffer?
        var bodySize = 0
    }

    /// Bodies beyond this many bytes are answered 413 at once, without waiting for the end.
    static let bodyLimit = 32 * 1024
    /// Connection window to return to the client in one WINDOW_UPDATE.
    private static let windowUpdateThreshold = 32 * 1024

    private let services: EmulatorServices
    private let validator: APNsRequestValidator
    private let resetter: ConnectionResetHandler
    /// Once silent, nothing more is answered, recorded or closed from this side.
    private let silencer: ConnectionSilencer
    private let connection: Int
    /// Whether this connection came to the channel management listener (only that API is served).
    private let management: Bool
    private var pending: [HTTP2StreamID: PendingRequest] = [:]
    /// Streams with an ordinal beyond `--goaway-after`, ignored and never answered.
    private var ignored: Set<HTTP2StreamID> = []
    /// Streams answered early (413 before their end); their remaining frames are dropped.
    private var answeredEarly: Set<HTTP2StreamID> = []
    private var streamsOpened = 0
    private var streamsFinished = 0
    private var goAwaySent = false
    private var raisedStreamLimit = false
    private var windowConsumed = 0
    private var needsFlush = false
    private var isClosing = false
    private var uuids = RandomUUIDGenerator()

    init(
        services: EmulatorServices, resetter: ConnectionResetHandler, silencer: ConnectionSilencer, connection: Int,
        management: Bool = false
    ) {
        self.services = services
        self.resetter = resetter
        self.silencer = silencer
        self.connection = connection
        self.management = management
        validator = APNsRequestValidator(
            trust: services.configuration.trust, tokenUpdates: services.tokenUpdates,
            environment: services.configuration.environment)
    }

    // MARK: Inbound frames

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Frames decoded from bytes read before the silence began still arrive: they go unanswered.
        if silencer.isSilent { return }
        let frame = unwrapInboundIn(data)
        let streamID = frame.streamID
        switch frame.payload {
        case .headers(let headers):
            if isClosing || ignored.contains(streamID) || answeredEarly.contains(streamID) { return }
            if pending[streamID] != nil {
                // Trailers: nothing in them matters to APNs.
                if headers.endStream { finishRequest(streamID, context: context) }
                return
            }
            streamsOpened += 1
            let configuration = services.configuration
            if let silentAfter = configuration.goSilentAfter, streamsOpened > silentAfter,
                services.claimSilenceAfter()
            {
                // The answers to the first N streams leave first; from stream N+1 on, nothing.
                flushIfNeeded(context: context)
                silencer.silence()
                services.note("connection \(connection) went silent at stream \(streamsOpened) (--go-silent-after)")
                return
            }
            if let dropAfter = configuration.dropAfter, streamsOpened > dropAfter {
                isClosing = true
                // The answers to the first N streams leave before the reset, and the client gets a
                // moment to read them: only the streams from N+1 on go unanswered, as the flag
                // promises (an RST can otherwise overtake answers still in the client's buffers).
                flushIfNeeded(context: context)
                let resetter = self.resetter
                context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(50)) { resetter.reset() }
                return
            }
            if let goAwayAfter = configuration.goAwayAfter, streamsOpened > goAwayAfter {
                ignored.insert(streamID)
                return
            }
            pending[streamID] = PendingRequest(headers: headers.headers)
            if streamsOpened == configuration.goAwayAfter { sendGoAway(lastStreamID: streamID, context: context) }
            if headers.endStream { finishRequest(streamID, context: context) }
        case .data(let data):
            var length = data.data.readableBytes
            if let padding = data.paddingBytes { length += padding + 1 }
            returnWindow(length, context: context)
            // Taken out while it grows, so appending does not copy a buffer the dictionary shares.
            guard !isClosing, case .byteBuffer(var bytes) = data.data,
                var request = pending.removeValue(forKey: streamID)
            else { return }
            request.bodySize += bytes.readableBytes
            if request.bodySize > Self.bodyLimit {
                answeredEarly.insert(streamID)
                answerOversized(streamID, request: request, context: context)
                return
            }
            if request.body == nil {
                request.body = bytes
            } else {
                request.body!.writeBuffer(&bytes)
            }
            pending[streamID] = request
            if data.endStream { finishRequest(streamID, context: context) }
        case .rstStream:
            if pending.removeValue(forKey: streamID) != nil { streamFinished(streamID, context: context) }
            ignored.remove(streamID)
            answeredEarly.remove(streamID)
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closed = event as? StreamClosedEvent {
            if pending.removeValue(forKey: closed.streamID) != nil { streamFinished(closed.streamID, context: context) }
            ignored.remove(closed.streamID)
            answeredEarly.remove(closed.streamID)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// HTTP/2 protocol errors were already answered by NIOHTTP2 (RST_STREAM for a stream error,
    /// GOAWAY for a connection error), so only they leave the connection to the client; anything
    /// else (I/O, TLS) closes it.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        services.report(error, connection: connection)
        if error is any NIOHTTP2Error || error is any NIOHPACKError { return }
        context.close(promise: nil)
    }

    // MARK: Answering

    private func finishRequest(_ streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        guard let request = pending.removeValue(forKey: streamID) else { return }
        let (headers, method, path) = Self.headerList(request.headers)
        let now = Date()
        if management || ChannelRequestJudge.isBroadcastPath(path) {
            let body = request.body.map { Array($0.readableBytesView) } ?? []
            let judge = services.channelJudge
            let verdict =
                management
                ? judge.judgeManagement(
                    method: method, path: path, headers: headers, body: body, validator: validator, now: now)
                : judge.judgeBroadcast(
                    method: method, path: path, headers: headers, body: body, validator: validator, now: now)
            answerChannelRequest(streamID, method: method, path: path, verdict: verdict, context: context)
            return
        }
        if let fcm = services.fcm, FCMEndpoint.serves(path: path) {
            let response = fcm.respond(
                method: method, path: path, headers: headers,
                body: request.body.map { Array($0.readableBytesView) } ?? [],
                connection: connection, stream: Int(streamID), now: now)
            answerFCM(streamID, response: response, context: context)
            return
        }
        if path.hasPrefix(EmulatorControl.prefix) {
            let control = EmulatorControl(
                state: services.state, configuration: services.configuration, channels: services.channels,
                fcm: services.fcm, phone: services.phone)
            let reply = control.reply(
                method: method, path: path, body: request.body.map { Array($0.readableBytesView) } ?? [],
                now: Self.milliseconds(now), eventLoop: context.eventLoop
            ) { [services, connection] in services.silenceOpenConnections(except: connection) }
            switch reply {
            case .now(let response):
                answerControl(streamID, response: response, context: context)
            case .later(let future):
                future.hop(to: context.eventLoop).assumeIsolated().whenSuccess { response in
                    // The connection may have closed or gone silent while the other server answered.
                    guard context.channel.isActive, !self.isClosing, !self.silencer.isSilent else { return }
                    self.answerControl(streamID, response: response, context: context)
                    self.flushIfNeeded(context: context)
                }
            }
            return
        }
        let body = request.body.map { Array($0.readableBytesView) } ?? []
        let assessment = validator.assess(method: method, path: path, headers: headers, body: body, now: now)
        answer(streamID, method: method, path: path, assessment: assessment, context: context)
    }

    /// Answers a body over `bodyLimit` with 413 before it ends, then resets the stream (NO_ERROR)
    /// so the client stops sending, as RFC 9113 §8.1 allows.
    private func answerOversized(_ streamID: HTTP2StreamID, request: PendingRequest, context: ChannelHandlerContext) {
        let (headers, method, path) = Self.headerList(request.headers)
        if !management, let fcm = services.fcm, FCMEndpoint.serves(path: path) {
            let response = fcm.respondTooLarge(
                method: method, path: path, bodySize: request.bodySize, connection: connection,
                stream: Int(streamID))
            answerFCM(streamID, response: response, context: context, thenReset: true)
            return
        }
        var assessment = validator.assess(method: method, path: path, headers: headers, body: [], now: Date())
        assessment.payloadSize = request.bodySize
        if assessment.rejection == nil || assessment.rejection?.reason == .payloadEmpty {
            assessment.rejection = APNsRejection(.payloadTooLarge)
        }
        answer(streamID, method: method, path: path, assessment: assessment, context: context, thenReset: true)
    }

    /// Writes the answer to a control request (control requests are never recorded).
    private func answerControl(
        _ streamID: HTTP2StreamID, response: EmulatorControl.Response, context: ChannelHandlerContext
    ) {
        write(
            streamID, status: response.status, headers: [], contentType: response.contentType, body: response.body,
            context: context)
        streamFinished(streamID, context: context)
    }

    /// Records and writes an answer of Google's routes; with `thenReset`, resets the stream after it
    /// (a body answered before its end).
    private func answerFCM(
        _ streamID: HTTP2StreamID, response: FCMEndpoint.Response, context: ChannelHandlerContext,
        thenReset: Bool = false
    ) {
        raiseStreamLimitOnce(authenticated: response.accepted, context: context)
        services.records.append(response.recordLine)
        services.summaries?.append(response.summary)
        write(
            streamID, status: response.status, headers: response.headers, contentType: "application/json",
            body: response.body, context: context)
        streamFinished(streamID, context: context)
        if thenReset {
            let reset = wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.noError)))
            context.eventLoop.assumeIsolated().execute { context.writeAndFlush(reset, promise: nil) }
        }
    }

    /// APNs allows one stream until a request carries a valid provider token, then raises
    /// SETTINGS_MAX_CONCURRENT_STREAMS: the first authenticated request of a connection does that here.
    private func raiseStreamLimitOnce(after assessment: APNsRequestAssessment, context: ChannelHandlerContext) {
        raiseStreamLimitOnce(authenticated: assessment.isAuthenticated, context: context)
    }

    /// The same for FCM: the first request Google's routes accept (an access token issued, a send
    /// with a live one) raises the limit, so FCM clients can multiplex as they do with Google.
    private func raiseStreamLimitOnce(authenticated: Bool, context: ChannelHandlerContext) {
        guard authenticated, !raisedStreamLimit else { return }
        raisedStreamLimit = true
        let settings: HTTP2Settings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: services.configuration.maximumConcurrentStreams)
        ]
        context.write(
            wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings(settings)))), promise: nil)
        needsFlush = true
    }

    private func answer(
        _ streamID: HTTP2StreamID, method: String, path: String, assessment: APNsRequestAssessment,
        context: ChannelHandlerContext, thenReset: Bool = false
    ) {
        let configuration = services.configuration
        raiseStreamLimitOnce(after: assessment, context: context)
        var record = EmulatorRequestRecord(
            time: 0, connection: connection, stream: Int(streamID), method: method, path: path, assessment: assessment,
            status: 200, reason: nil)
        var delay = configuration.delayMilliseconds
        let step =
            assessment.rejection == nil ? services.state.scriptStep(forAccepted: assessment.deviceToken ?? "") : nil
        if let rejection = assessment.rejection {
            record.status = rejection.status
            record.reason = rejection.reason
            record.detail =
                assessment.providerTokenProblem ?? (rejection.reason == .badPayload ? assessment.payloadProblem : nil)
        } else if case .stall = step {
            // Never answered, so never recorded: the stream stays open until the client resets it
            // or the connection ends.
            record.status = 0
            record.time = Self.milliseconds(Date())
            record.detail = "--script-file: stalled, never answered"
            services.summaries?.append(record.summary())
            return
        } else if case .fail(let failure) = step {
            record.status = failure.rejection.status
            record.reason = failure.rejection.reason
            record.detail = "--script-file"
        } else if let verdict = services.state.verdict(
            forAccepted: assessment.deviceToken ?? "", failFirst: configuration.failFirst,
            failRate: configuration.failRate)
        {
            record.status = verdict.rejection.status
            record.reason = verdict.rejection.reason
            record.timestamp = verdict.timestamp
            record.detail = verdict.detail
        }
        if record.detail == nil, record.status == 200 { record.detail = assessment.acceptanceNote }
        // Apple's 410 body always carries the time the token stopped being valid: injected ones too.
        if record.status == 410, record.timestamp == nil { record.timestamp = Self.milliseconds(Date()) }
        record.apnsID = assessment.apnsID.flatMap { APNsRequest.isCanonicalUUID($0) ? $0 : nil } ?? uuids.uuidString()
        if record.status == 200, configuration.environment == .sandbox {
            record.apnsUniqueID = uuids.uuidString()
        }
        if case .delay(let milliseconds) = step { delay += milliseconds }
        if delay > 0 {
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(delay)) {
                // A connection being closed (GOAWAY's grace over, or --drop-after) may still be
                // active while TLS says goodbye, but nothing written now reaches the client: the
                // answer is neither sent nor recorded, so the record never shows a delivery the
                // client could not see (and then resends).
                guard context.channel.isActive, !self.isClosing, !self.silencer.isSilent else { return }
                self.send(streamID, record: record, context: context, thenReset: thenReset)
                self.flushIfNeeded(context: context)
            }
        } else {
            send(streamID, record: record, context: context, thenReset: thenReset)
        }
    }

    /// Answers a broadcast or a channel management request: `apns-request-id` on every answer (the
    /// request's when it is a UUID, else a new one), the verdict's headers and body on success.
    /// `--fail-first` and `--fail-rate` apply to accepted broadcasts, counted per channel id.
    private func answerChannelRequest(
        _ streamID: HTTP2StreamID, method: String, path: String, verdict: ChannelRequestVerdict,
        context: ChannelHandlerContext
    ) {
        let configuration = services.configuration
        let assessment = verdict.assessment
        raiseStreamLimitOnce(after: assessment, context: context)
        var record = EmulatorRequestRecord(
            time: Self.milliseconds(Date()), connection: connection, stream: Int(streamID), method: method, path: path,
            assessment: assessment, status: verdict.status, reason: assessment.rejection?.reason)
        if let rejection = assessment.rejection {
            record.detail = assessment.providerTokenProblem ?? assessment.payloadProblem
            record.status = rejection.status
        } else if assessment.kind == .broadcast,
            let fault = services.state.verdict(
                forAccepted: assessment.channelID ?? "", failFirst: configuration.failFirst,
                failRate: configuration.failRate)
        {
            record.status = fault.rejection.status
            record.reason = fault.rejection.reason
            record.detail = fault.detail
        } else {
            record.detail = assessment.acceptanceNote
        }
        let requestID =
            assessment.requestID.flatMap { APNsRequest.isCanonicalUUID($0.lowercased()) ? $0 : nil }
            ?? uuids.uuidString()
        record.assessment.requestID = requestID
        let line = record.jsonLine()
        services.records.append(line)
        services.summaries?.append(record.summary())
        services.state.didAnswer(accepted: record.reason == nil, recordLine: line)

        var headers: [(String, String)] = [("apns-request-id", requestID)]
        if let reason = record.reason {
            var writer = JSONObjectWriter(capacity: 64)
            writer.field("reason", reason.rawValue)
            write(
                streamID, status: record.status, headers: headers, contentType: "application/json",
                body: writer.finish(), context: context)
        } else {
            if assessment.kind == .broadcast, configuration.environment == .sandbox {
                headers.append(("apns-unique-id", uuids.uuidString()))
            }
            headers += verdict.headers.map { ($0.name, $0.value) }
            write(
                streamID, status: record.status, headers: headers,
                contentType: verdict.body == nil ? nil : "application/json", body: verdict.body, context: context)
        }
        streamFinished(streamID, context: context)
    }

    /// Records the answer, then writes it (flushed at the end of the read batch).
    private func send(
        _ streamID: HTTP2StreamID, record: EmulatorRequestRecord, context: ChannelHandlerContext, thenReset: Bool
    ) {
        var record = record
        let now = Date()
        record.time = Self.milliseconds(now)
        let line = record.jsonLine()
        services.records.append(line)
        services.summaries?.append(record.summary())
        services.state.didAnswer(accepted: record.status == 200, recordLine: line)

        var extra: [(String, String)] = [("apns-id", record.apnsID ?? uuids.uuidString())]
        if let uniqueID = record.apnsUniqueID { extra.append(("apns-unique-id", uniqueID)) }
        if let reason = record.reason {
            var writer = JSONObjectWriter(capacity: 64)
            writer.field("reason", reason.rawValue)
            if let timestamp = record.timestamp { writer.field("timestamp", Int(timestamp)) }
            write(
                streamID, status: record.status, headers: extra, contentType: "application/json", body: writer.finish(),
                context: context)
        } else {
            write(streamID, status: 200, headers: extra, contentType: nil, body: nil, context: context)
        }
        streamFinished(streamID, context: context)
        if thenReset {
            // After the answer has left: NIOHTTP2 drops DATA still queued on a stream it resets.
            let reset = wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.noError)))
            context.eventLoop.assumeIsolated().execute {
                context.writeAndFlush(reset, promise: nil)
            }
        }
    }

    private func write(
        _ streamID: HTTP2StreamID, status: Int, headers extra: [(String, String)], contentType: String?, body: [UInt8]?,
        context: ChannelHandlerContext
    ) {
        var headers = HPACKHeaders()
        headers.add(name: ":status", value: String(status))
        for (name, value) in extra { headers.add(name: name, value: value) }
        if let body, let contentType {
            headers.add(name: "content-type", value: contentType)
            headers.add(name: "content-length", value: String(body.count))
        }
        let endsWithHeaders = body == nil
        context.write(
            wrapOutboundOut(
                HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: endsWithHeaders)))),
            promise: nil)
        if let body {
            let buffer = context.channel.allocator.buffer(bytes: body)
            context.write(
                wrapOutboundOut(
                    HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(buffer), endStream: true)))),
                promise: nil)
        }
        needsFlush = true
    }

    // MARK: Connection housekeeping

    /// `--goaway-after N`: when stream N arrives, GOAWAY names it the last stream this connection
    /// serves. Streams up to it are still answered (later ones are ignored: the client resends them
    /// elsewhere); the connection closes once they are, or `goAwayGrace` after the GOAWAY when some
    /// never are (a stalled or very slow answer), as a server going away does not wait forever.
    private func sendGoAway(lastStreamID: HTTP2StreamID, context: ChannelHandlerContext) {
        goAwaySent = true
        let reason = context.channel.allocator.buffer(string: #"{"reason":"Shutdown"}"#)
        let goAway = HTTP2Frame(
            streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: reason)
        )
        context.writeAndFlush(wrapOutboundOut(goAway), promise: nil)
        context.eventLoop.assumeIsolated().scheduleTask(in: Self.goAwayGrace) {
            guard !self.isClosing, !self.silencer.isSilent else { return }
            self.isClosing = true
            self.services.flushOutputs()
            context.close(promise: nil)
        }
    }

    /// How long a connection that sent GOAWAY waits for its last streams' answers.
    static let goAwayGrace = TimeAmount.seconds(1)

    /// Counts a stream as done; once GOAWAY went out and the streams it covers are answered, closes.
    private func streamFinished(_ streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        streamsFinished += 1
        guard goAwaySent, streamsFinished == services.configuration.goAwayAfter, !isClosing, !silencer.isSilent else {
            return
        }
        isClosing = true
        services.flushOutputs()
        // Close a moment after the last answer rather than at once: a close while the client's next
        // requests sit unread in our receive buffer makes the kernel send RST, which can destroy
        // answers the client has not read yet (they would then be resent as if never delivered).
        // A client normally closes first, once its streams below the last stream id are answered.
        flushIfNeeded(context: context)
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(250)) { context.close(promise: nil) }
    }

    /// Gives consumed DATA bytes back to the connection window in batches.
    private func returnWindow(_ length: Int, context: ChannelHandlerContext) {
        windowConsumed += length
        guard windowConsumed >= Self.windowUpdateThreshold, !isClosing else { return }
        context.write(
            wrapOutboundOut(
                HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: windowConsumed))),
            promise: nil)
        windowConsumed = 0
        needsFlush = true
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        guard needsFlush else { return }
        needsFlush = false
        services.flushOutputs()
        context.flush()
    }

    /// The headers in order, repeats kept, as the validator takes them, and `:method` and `:path`
    /// picked out on the way.
    private static func headerList(
        _ headers: HPACKHeaders
    ) -> (list: [(name: String, value: String)], method: String, path: String) {
        var list: [(name: String, value: String)] = []
        list.reserveCapacity(headers.count)
        var method = "", path = ""
        for header in headers {
            list.append((header.name, header.value))
            if header.name.utf8.first == UInt8(ascii: ":") {
                if header.name.utf8.elementsEqual(":method".utf8) { method = header.value }
                if header.name.utf8.elementsEqual(":path".utf8) { path = header.value }
            }
        }
        return (list, method, path)
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
