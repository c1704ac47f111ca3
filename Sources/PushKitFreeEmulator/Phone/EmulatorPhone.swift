#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import PushKitFreeCore

/// Plays the app on a phone that received a question (`POST /emulator/answer`): finds the question
/// push among the recorded requests and posts the tap or the typed reply to its answer URL, as the
/// app's sample in the guide does, so tests and demos can show a whole round trip.
///
/// Answers, as JSON: `200 {"question", "device_token", "answer_url", "status", "body"}` once the
/// server answered (`status` and `body` are the server's, whatever they say); `400` a bad body;
/// `404` no question push recorded; `422` the push travelled sealed (`enc`), which only the app's
/// key opens; `502` the answer URL could not be reached or gave no whole answer. Errors are
/// `{"error": "<sentence>"}`.
struct EmulatorPhone: Sendable {
    let state: EmulatorState
    let poster: AnswerPoster
    /// Notes each answer on standard error; `nil` says nothing.
    var note: (@Sendable (String) -> Void)?

    /// Answers the question `body` picks; the future never fails.
    func answer(body: [UInt8], on eventLoop: any EventLoop) -> EventLoopFuture<EmulatorControl.Response> {
        let request: PhoneAnswerRequest
        do {
            request = try PhoneAnswerRequest.parse(body)
        } catch {
            return eventLoop.makeSucceededFuture(Self.error(400, error.message))
        }
        let question: RecordedQuestion
        switch RecordedQuestion.newest(
            in: state.recentRecordLines(), question: request.question, deviceToken: request.deviceToken)
        {
        case .found(let found):
            question = found
        case .sealed(let id, _):
            return eventLoop.makeSucceededFuture(
                Self.error(
                    422,
                    "the push of question \(id) is sealed (enc): only the app's key opens it, so the emulator "
                        + "cannot read its answer URL and token"))
        case .none:
            return eventLoop.makeSucceededFuture(Self.error(404, Self.notFoundMessage(request)))
        }
        let url: AnswerURL
        do {
            url = try AnswerURL(question.answerURL)
        } catch {
            return eventLoop.makeSucceededFuture(Self.error(502, error.message))
        }
        let note = self.note
        return poster.post(request.answerBody(token: question.answerToken), to: url, on: eventLoop)
            .map { answer -> EmulatorControl.Response in
                note?(
                    "answered question \(question.id) for \(EmulatorRequestRecord.abbreviated(question.deviceToken)): \(answer.status)"
                )
                var writer = JSONObjectWriter(capacity: 256 + answer.body.count)
                writer.field("question", question.id)
                writer.field("device_token", question.deviceToken)
                writer.field("answer_url", question.answerURL)
                writer.field("status", answer.status)
                if answer.body.isEmpty {
                    writer.rawField("body", json: nil as [UInt8]?)
                } else if let parsed = try? JSONValue.parse(Data(answer.body)) {
                    writer.rawField("body", json: parsed.serializedString())
                } else {
                    writer.field("body", String(decoding: answer.body, as: UTF8.self))
                }
                var bytes = writer.finish()
                bytes.append(0x0A)
                return EmulatorControl.Response(status: 200, contentType: "application/json", body: bytes)
            }
            .recover { error in
                let reason = (error as? AnswerPoster.Failure)?.message ?? "\(error)"
                note?("could not answer question \(question.id): \(reason)")
                return Self.error(502, "cannot post the answer to \(question.answerURL): \(reason)")
            }
    }

    private static func notFoundMessage(_ request: PhoneAnswerRequest) -> String {
        var message = "no question push was delivered"
        if let question = request.question { message += " for question \(question)" }
        if let token = request.deviceToken { message += " to device \(token)" }
        return message + " (the emulator keeps the last \(EmulatorState.recentRecordLimit) records)"
    }

    static func error(_ status: Int, _ message: String) -> EmulatorControl.Response {
        var writer = JSONObjectWriter(capacity: 64 + message.utf8.count)
        writer.field("error", message)
        var bytes = writer.finish()
        bytes.append(0x0A)
        return EmulatorControl.Response(status: status, contentType: "application/json", body: bytes)
    }
}
