/// Why a push provider (APNs, FCM) refused a request, as the answer spells it: known reasons are
/// static values of the conforming type, each with the HTTP status the provider documents for it
/// in `statuses`. A reason this version does not know still parses (`init(rawValue:)` never
/// fails) and reports `isKnown == false` and no `status`, so a new one is shown as it is rather
/// than lost.
package protocol ProviderReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible
where RawValue == String {
    /// The documented reasons, each with the HTTP status it comes with.
    static var statuses: [String: Int] { get }
}

extension ProviderReason {
    /// The reason as the provider spells it.
    package var description: String { rawValue }

    /// Whether this is one of the reasons the provider documents.
    package var isKnown: Bool { Self.statuses[rawValue] != nil }

    /// The HTTP status the provider answers with this reason; `nil` for an unknown reason.
    package var status: Int? { Self.statuses[rawValue] }

    /// Every documented reason, sorted by name.
    package static var allKnown: [Self] { statuses.keys.sorted().compactMap(Self.init(rawValue:)) }
}
