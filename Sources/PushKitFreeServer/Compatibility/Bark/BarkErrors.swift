#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import PushKitFreeCore

/// Bark's error shape, `{"code": 401, "message", "timestamp", "error"}`, on Bark's routes: `/push`
/// and the path forms, unless the path's first segment is one of the server's own.
struct BarkErrors: ErrorShape {
    func claims(_ request: Request, routePath: String?, routes: RouteCatalogue) -> Bool {
        guard let routePath else { return false }
        if routePath == BarkRoutes.pushPath { return true }
        return BarkRoutes.pathForms.contains(routePath) && !routes.startsWithReservedName(request.uri.path)
    }

    func body(of error: EndpointError, requestID: String?) -> JSONValue {
        body(of: error, requestID: requestID, now: Date())
    }

    /// The body, its `timestamp` `now`.
    func body(of error: EndpointError, requestID: String?, now: Date) -> JSONValue {
        var object = error.members(requestID: requestID)
        object["code"] = .number(Double(error.status.code))
        object["message"] = object["error"]
        object["timestamp"] = .number(Double(Int(now.timeIntervalSince1970)))
        return .object(object)
    }
}
