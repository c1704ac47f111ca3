#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// The body of `POST /emulator/answer`: what the person on the phone does, and which recorded
/// question they do it to.
///
/// `{"choice": "allow"}` taps a button, `{"text": "..."}` types a reply; `question` and
/// `device_token` pick the question push (else the newest). The choice is sent as given, even one
/// the push does not offer, so a test can see the server refuse it.
struct PhoneAnswerRequest: Sendable, Equatable {
    /// The tap or the typed reply.
    enum Action: Sendable, Equatable {
        case choice(String)
        case text(String)
    }

    var action: Action
    /// The question id to answer; `nil` for the newest question push.
    var question: String?
    /// The device whose question push to answer; `nil` for any.
    var deviceToken: String?

    /// Why a body was refused, in words for the control route's `400`.
    struct Problem: Error, Equatable {
        var message: String
    }

    private static let members: Set<String> = ["choice", "text", "question", "device_token"]

    /// Reads a body; an empty body is refused like any other that names no action.
    static func parse(_ body: [UInt8]) throws(Problem) -> PhoneAnswerRequest {
        let value: JSONValue
        do {
            value = try JSONValue.parse(Data(body))
        } catch {
            throw Problem(message: "the body is not JSON (\(error.detail))")
        }
        guard let object = value.objectValue else {
            throw Problem(message: "the body must be a JSON object such as {\"choice\": \"allow\"}")
        }
        if let unknown = object.keys.filter({ !members.contains($0) }).sorted().first {
            throw Problem(message: "unknown member \"\(unknown)\" (choice, text, question, device_token)")
        }
        let question = try optionalString(object, "question")
        let deviceToken = try optionalString(object, "device_token")
        let action: Action
        switch (try optionalString(object, "choice"), try optionalString(object, "text")) {
        case (let choice?, nil): action = .choice(choice)
        case (nil, let text?): action = .text(text)
        case (nil, nil): throw Problem(message: "give \"choice\" (a button's id) or \"text\" (a typed reply)")
        case (_?, _?): throw Problem(message: "give either \"choice\" or \"text\", not both")
        }
        return PhoneAnswerRequest(action: action, question: question, deviceToken: deviceToken)
    }

    /// The member as a non-empty string, `nil` when absent or `null`.
    private static func optionalString(_ object: [String: JSONValue], _ name: String) throws(Problem) -> String? {
        guard let value = object[name], value != .null else { return nil }
        guard let text = value.stringValue, !text.isEmpty else {
            throw Problem(message: "\"\(name)\" must be a non-empty string")
        }
        return text
    }

    /// What the app posts to the answer URL: the device's token and the tap or the text, as JSON.
    func answerBody(token: String) -> [UInt8] {
        var writer = JSONObjectWriter(capacity: 128)
        writer.field("token", token)
        switch action {
        case .choice(let choice): writer.field("choice", choice)
        case .text(let text): writer.field("text", text)
        }
        return writer.finish()
    }
}
