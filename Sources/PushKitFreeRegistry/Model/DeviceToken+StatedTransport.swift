import PushKitFreeCore

/// Reading a device's token where the transport may also be stated (`--transport`, a body's or a
/// record's `"transport"` member): the statement must agree with the token's shape.
extension DeviceToken {
    /// Validates `text` as a token of `stated`, or, when `stated` is `nil`, of the transport its
    /// shape names (see `init(validating:transport:)`).
    /// - Parameter statedBy: how messages name the statement, e.g. `--transport` or `"transport"`.
    /// - Throws: `DeviceTokenError` (exit 65): a token of neither shape, one that is not a token of
    ///   `stated`, or one of the other transport's shape, named so (`--transport is fcm, but the
    ///   token is an APNs device token`).
    package init(validating text: String, stated: PushTransport?, statedBy: String) throws(DeviceTokenError) {
        if let stated,
            let message = (try? DeviceToken(validating: text, transport: nil))?
                .disagreement(with: stated, statedBy: statedBy)
        {
            throw DeviceTokenError(message)
        }
        try self.init(validating: text, transport: stated)
    }

    /// Why this token is not one of `stated`, named as `statedBy`; `nil` when it is.
    package func disagreement(with stated: PushTransport, statedBy: String) -> String? {
        stated == transport ? nil : "\(statedBy) is \(stated.rawValue), but the token is \(transport.tokenName)"
    }
}

extension PushTransport {
    /// What a token of this transport is called in messages: "an APNs device token".
    package var tokenName: String {
        switch self {
        case .apns: "an APNs device token"
        case .fcm: "an FCM registration token"
        }
    }
}
