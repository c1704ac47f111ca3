/// The service that delivers to a device: Apple's APNs, or Google's Firebase Cloud Messaging (for
/// Android phones, and iOS apps that register through Firebase).
package enum PushTransport: String, Sendable, Hashable, CaseIterable {
    /// Apple Push Notification service, over its HTTP/2 API with a provider token.
    case apns
    /// Firebase Cloud Messaging's HTTP v1 API, with an OAuth 2.0 access token.
    case fcm
}
