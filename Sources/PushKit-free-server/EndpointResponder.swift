import Hummingbird
import PushKitFreeCore

/// The one responder of the server: hands each request to `EndpointService`, then writes the
/// access-log line and the request metrics.
///
/// Every answer carries `X-Request-Id`. A `HEAD` request is answered as its `GET` would be, with
/// the same status and headers (`Content-Length` included) and no body.
struct EndpointResponder: HTTPResponder {
    typealias Context = EndpointRequestContext
    let service: EndpointService

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        let notes = EndpointService.Notes()
        notes.requestID = RequestID.make(presented: request.headers[RequestID.header])
        var response = await service.respond(to: request, client: context.client, notes: notes)
        response.headers[RequestID.header] = notes.requestID
        if request.method == .head { response = response.createHeadResponse() }
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let status = Int(response.status.code)
        StandardStreams.writeError(AccessLog.line(client: context.client, method: request.method.rawValue, path: request.uri.path,
                                                  status: status, seconds: seconds, token: notes.token))
        service.metrics.request(route: notes.route?.path ?? "unmatched", method: request.method.rawValue, status: status, seconds: seconds)
        return response
    }
}
