import Hummingbird
import PushKitFreeCore

/// ntfy's error shape, `{"code": 40100, "http": 401, "error"}` (its codes are the status and two
/// digits), on ntfy's routes: `POST`/`PUT /` and `/{topic}`, `PUT`/`DELETE /{topic}/{sequence_id}`
/// and `PUT /{topic}/{sequence_id}/clear`, unless the path's first segment is one of the server's
/// own (`GET /` is the Ember gateway's; the other methods of the longer paths are Bark's).
struct NtfyErrors: ErrorShape {
    func claims(_ request: Request, routePath: String?, routes: RouteCatalogue) -> Bool {
        switch routePath {
        case NtfyRoutes.jsonPath?: ![.get, .head].contains(request.method)
        case NtfyRoutes.topicPath?: !routes.startsWithReservedName(request.uri.path)
        case NtfyRoutes.sequencePath?:
            [.put, .delete].contains(request.method) && !routes.startsWithReservedName(request.uri.path)
        case NtfyRoutes.clearPath?: request.method == .put && !routes.startsWithReservedName(request.uri.path)
        default: false
        }
    }

    func body(of error: EndpointError, requestID: String?) -> JSONValue {
        var object = error.members(requestID: requestID)
        let code = Double(error.status.code)
        object["code"] = .number(code * 100)
        object["http"] = .number(code)
        return .object(object)
    }
}
