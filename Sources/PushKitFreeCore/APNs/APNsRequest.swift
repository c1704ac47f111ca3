#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The parts of an APNs request that are the same for every device of a run: topic, push type,
/// priority, expiration, collapse id, apns-id and the payload. It computes the headers.
package struct APNsRequest: Sendable {
    /// The app's bundle id; the topic adds the push type's suffix.
    package var bundleID: String
    /// `apns-push-type`; it also decides the topic suffix, the allowed priorities and the payload limit.
    package var pushType: APNsPushType
    /// `apns-priority`, always sent.
    package var priority: APNsPriority
    /// UNIX seconds after which APNs stops trying; 0 = try once, do not store; `nil` = header omitted.
    package var expiration: Int?
    /// `apns-collapse-id`, at most 64 UTF-8 bytes; `nil` = header omitted.
    package var collapseID: String?
    /// A canonical lowercase UUID; `nil` lets APNs assign one per request.
    package var apnsID: String?
    /// The serialized payload; with `sealedContent`, the clear placeholder alone, without `enc`.
    package var payload: Data
    /// An encrypted send's content: the payload that would have been sent, sealed for each device
    /// with its content key into `enc` (`body(for:)`); `nil` for a send in clear.
    package var sealedContent: Data?

    /// A request; a `nil` priority is the push type's default (`APNsPriority.default(for:)`).
    package init(
        bundleID: String, pushType: APNsPushType = .alert, priority: APNsPriority? = nil, expiration: Int? = nil,
        collapseID: String? = nil, apnsID: String? = nil, payload: Data
    ) {
        self.bundleID = bundleID
        self.pushType = pushType
        self.priority = priority ?? .default(for: pushType)
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.payload = payload
    }

    /// `apns-topic`: bundle id plus the push type's suffix (`.voip`, `.push-type.liveactivity`, …).
    package var topic: String { pushType.topic(forBundleID: bundleID) }

    /// The longest `apns-collapse-id` APNs accepts, in UTF-8 bytes.
    package static let maximumCollapseIDBytes = 64

    /// Checks what APNs would refuse, before anything is sent.
    /// - Throws: `PayloadError.invalid` naming the flag at fault.
    package func validate() throws(PayloadError) {
        if !priority.isAllowed(for: pushType) {
            throw .invalid(
                "\(setting: .priority) \(priority.rawValue) is not allowed for background notifications; APNs requires 5"
            )
        }
        if HeaderValue.hasControlCharacter(bundleID) {
            throw .invalid("the topic \(HeaderValue.refusal)")
        }
        if let collapseID, HeaderValue.hasControlCharacter(collapseID) {
            throw .invalid("\(setting: .collapseID) \(HeaderValue.refusal)")
        }
        if let collapseID, collapseID.utf8.count > Self.maximumCollapseIDBytes {
            throw .invalid(
                "\(setting: .collapseID) is \(collapseID.utf8.count) bytes; APNs allows at most \(Self.maximumCollapseIDBytes)"
            )
        }
        if let apnsID, !Self.isCanonicalUUID(apnsID) {
            throw .invalid("\(setting: .apnsID) \"\(apnsID)\" is not a UUID like 123e4567-e89b-12d3-a456-426614174000")
        }
        if payload.count > pushType.maximumPayloadSize {
            throw .tooLarge(size: payload.count, limit: pushType.maximumPayloadSize, detail: "")
        }
        if let sealedContent {
            let size = ContentSealing.payloadSize(clearBytes: payload.count, contentBytes: sealedContent.count)
            if size > pushType.maximumPayloadSize {
                throw .tooLarge(size: size, limit: pushType.maximumPayloadSize, detail: " once encrypted")
            }
        }
    }

    /// The body sent to a device: `payload`, or for an encrypted send the clear placeholder with
    /// `sealedContent` sealed under `key` (a fresh nonce each call) as `enc`.
    /// - Throws: `ContentKeyError` (65) for an encrypted send to a device without a key; swift-crypto's
    ///   error, which a valid key never causes.
    package func body(for key: ContentKey?) throws -> Data {
        guard let sealedContent else { return payload }
        guard let key else { throw ContentKeyError(ContentKeyError.missing) }
        return ContentSealing.payload(clear: payload, sealed: try ContentSealing.seal(sealedContent, with: key))
    }

    /// The request headers, names lowercase, for `providerToken` (the compact JWT).
    package func headers(providerToken: String) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("authorization", "bearer " + providerToken),
            ("apns-topic", topic),
            ("apns-push-type", pushType.rawValue),
            ("apns-priority", String(priority.rawValue)),
        ]
        if let expiration { headers.append(("apns-expiration", String(expiration))) }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        if let apnsID { headers.append(("apns-id", apnsID)) }
        headers.append(("content-type", "application/json"))
        return headers
    }

    /// The URL for `token` at `baseURL` (`https://host[:port]`, trailing slash tolerated).
    package static func url(baseURL: String, token: String) -> String {
        (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + "/3/device/" + token
    }

    /// Whether `text` is a canonical UUID, as APNs wants `apns-id`: 8-4-4-4-12 lowercase hex digits.
    package static func isCanonicalUUID(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == 36 else { return false }
        for (offset, byte) in utf8.enumerated() {
            switch offset {
            case 8, 13, 18, 23:
                if byte != UInt8(ascii: "-") { return false }
            default:
                let isLowerHex =
                    (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
                if !isLowerHex { return false }
            }
        }
        return true
    }
}
