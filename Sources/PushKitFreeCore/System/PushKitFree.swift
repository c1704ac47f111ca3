/// Facts about this release of pushkit-free as a whole.
package enum PushKitFree {
    /// The version every tool prints for `--version`, and `register-apns serve`'s OpenAPI document
    /// states as `info.version` (a test keeps the two equal).
    package static let version = "0.14.0"
}
