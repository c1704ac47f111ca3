import Hummingbird
import PushKitFreeCore

/// The Ember gateway's error shape, the protocol's error message: `"type": "error"` and `message`
/// beside `error` (the same text), on every path under `/gateway/`, a route's or not, and on
/// `GET /` (the WebSocket of the app's bare gateway URL).
struct EmberErrors: ErrorShape {
    func claims(_ request: Request, routePath: String?, routes: RouteCatalogue) -> Bool {
        let path = routePath ?? request.uri.path
        return (path == GatewayRoutes.rootPath && [.get, .head].contains(request.method)) || path.hasPrefix("/gateway/")
    }

    func body(of error: EndpointError, requestID: String?) -> JSONValue {
        var object = error.members(requestID: requestID)
        object["type"] = "error"
        object["message"] = object["error"]
        return .object(object)
    }
}
