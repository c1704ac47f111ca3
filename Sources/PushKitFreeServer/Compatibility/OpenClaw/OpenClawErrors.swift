import Hummingbird
import PushKitFreeCore

/// OpenClaw's error shape, FastAPI's: `detail` beside `error` (the service's own words where they
/// differ, "Device not found"), on every path under `/api/v1/`, a route's or not.
struct OpenClawErrors: ErrorShape {
    func claims(_ request: Request, routePath: String?, routes: RouteCatalogue) -> Bool {
        (routePath ?? request.uri.path).hasPrefix("/api/v1/")
    }

    func body(of error: EndpointError, requestID: String?) -> JSONValue {
        var object = error.members(requestID: requestID)
        object["detail"] = error.openClawDetail.map(JSONValue.string) ?? object["error"]
        return .object(object)
    }
}
