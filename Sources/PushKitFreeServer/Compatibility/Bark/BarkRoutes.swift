#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import PushKitFreeCore
import PushKitFreeRegistry

/// Bark's push protocol: `POST /push` with JSON (`device_key` or `device_keys`), and `GET`/`POST`
/// `/:key/:body`, `/:key/:title/:body`, `/:key/:title/:subtitle/:body` with the rest in the query,
/// a form or a JSON body (`BarkMessage`). A key names a device id or a group (`NotifierAudience`).
///
/// The answer is Bark's `{"code": 200, "message": "success", "timestamp"}`; errors carry Bark's
/// `code` and `message` too (`BarkErrors`). A send APNs took for no device is
/// 502. `HEAD` on the `GET` routes checks the path and the secret and sends nothing.
///
/// This is not a design the project replaces but a protocol it speaks, so that Bark's clients
/// (its shortcuts, Apprise, Shoutrrr) can send to the app. Retirement: delete this folder and its
/// line in `EndpointRouter.make` (with ntfy gone too, `Compatibility/Notifiers/` and the notifier
/// route group), its tests and its paths in docs/openapi.yaml.
struct BarkRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let registrations: DeviceRegistrations
    let sender: NotificationSender
    /// The server's routes, whose first segments no key may be.
    let routes: RouteCatalogue

    /// The JSON form's path.
    static let pushPath = "/push"
    /// The path forms: `/key/body`, `/key/title/body`, `/key/title/subtitle/body`.
    static let pathForms = ["/{key}/{first}", "/{key}/{first}/{second}", "/{key}/{first}/{second}/{third}"]

    /// Adds `/push` and the path forms to the notifier group (the secret, or HTTP Basic with it).
    func add(to groups: EndpointRouteGroups) {
        groups.answerErrors(in: BarkErrors())
        let notifiers = groups.notifiers
        notifiers.post(RouterPath(Self.pushPath), use: push)
        for path in Self.pathForms {
            let route = RouterPath(path)
            notifiers.get(route, use: pathPush)
            notifiers.post(route, use: pathPush)
        }
    }

    @Sendable func push(_ request: Request, context: Context) async throws -> Response {
        let body = try await request.jsonBody()
        guard let object = body.objectValue else {
            throw EndpointError.badRequest("expected a JSON object with \"device_key\", not \(body.typeName)")
        }
        return try await send(
            try BarkMessage(
                path: [:], body: object, query: NotifierRequest.query(request), reservedNames: routes.reservedNames))
    }

    @Sendable func pathPush(_ request: Request, context: Context) async throws -> Response {
        let key = try NotifierRequest.reservedCheck(
            request, parameter: context.parameters.get("key"), routes: routes)
        // The texts by position: `/key/body`, `/key/title/body`, `/key/title/subtitle/body`.
        let texts = ["first", "second", "third"].compactMap { context.parameters.get($0) }
        let names = [["body"], ["title", "body"], ["title", "subtitle", "body"]][texts.count - 1]
        var path = ["device_key": key]
        for (name, value) in zip(names, texts) { path[name] = RouteCatalogue.percentDecoded(Substring(value)) }
        let body = request.method == .post ? try await Self.fields(request) : [:]
        let message = try BarkMessage(
            path: path, body: body, query: NotifierRequest.query(request), reservedNames: routes.reservedNames)
        if request.method == .head { return Response(status: .ok) }
        return try await send(message)
    }

    private func send(_ message: BarkMessage) async throws -> Response {
        let audience = try NotifierAudience.audience(message.keys, in: try registrations.read(), what: "device_key")
        let report = try await sender.send(message.specification, to: audience)
        if let failure = NotifierAudience.failure(of: report) { throw failure }
        return .json(
            BarkMessage.success(
                time: Date(), devices: report.results.count, deliveredTo: EndpointJSON.deliveredTo(report)))
    }

    /// A `POST`'s body as parameters: a JSON object (when `Content-Type` says JSON, or the body
    /// begins with `{` or `[`), else a form (`application/x-www-form-urlencoded`); none when it is
    /// empty.
    static func fields(_ request: Request) async throws(EndpointError) -> [String: JSONValue] {
        let data = try await request.bodyBytes()
        let text = String(decoding: data, as: UTF8.self).trimmingWhitespace
        if text.isEmpty { return [:] }
        let json = request.headers[.contentType]?.lowercased().contains("json") ?? false
        if json || text.hasPrefix("{") || text.hasPrefix("[") {
            let value: JSONValue
            do throws(JSONSyntaxError) {
                value = try JSONValue.parse(data)
            } catch {
                throw .badRequest("the request body is not JSON: \(error.detail)")
            }
            guard let object = value.objectValue else {
                throw .badRequest("expected a JSON object or a form, not \(value.typeName)")
            }
            return object
        }
        return form(text).mapValues(JSONValue.string)
    }

    /// The fields of a URL-encoded form: `+` is a space, `%XX` a byte; the first of each name.
    static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in
                RouteCatalogue.percentDecoded(Substring(part.replacing("+", with: " ")))
            }
            let name = decode(parts[0])
            if fields[name] == nil { fields[name] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return fields
    }
}
