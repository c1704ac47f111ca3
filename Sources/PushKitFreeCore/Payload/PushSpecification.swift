#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything a user said about one notification, as plain values (from `send-push`'s flags), and
/// the rules that turn it into an `APNsRequest`.
package struct PushSpecification: Sendable {
    /// The notification's fields; `build` sets its sound from `sound` and merges `data` into its custom data.
    package var content = NotificationContent()
    /// `--sound`; `nil` means the default (`default` for alerts), "none" means silent.
    package var sound: String?
    /// `--data`, each a JSON object merged beside `aps`.
    package var data: [String] = []
    /// The key the custom data goes under, as one object, instead of beside `aps` (a payload
    /// profile's `dataKey`, e.g. `openclaw`); `nil` leaves it beside `aps`.
    package var dataEnvelope: String?
    /// `--payload-file`: the bytes of a complete payload (or a simulator `.apns` file).
    package var payloadFile: Data?
    /// `--push-type`; alert by default.
    package var pushType = APNsPushType.alert
    /// `--priority`; `nil` means the push type's default.
    package var priority: APNsPriority?
    /// `--expiration` in UNIX seconds, 0 for try once; `nil` omits the header.
    package var expiration: Int?
    /// `--collapse-id`; `auto` becomes an id derived from the thread id, groups or topic (`NotificationPolicy`).
    package var collapseID: String?
    /// `--apns-id`, a lowercase UUID; `nil` lets APNs assign one.
    package var apnsID: String?
    /// The legacy positional form `send-push MESSAGE_ID PREVIEW` (and `--hook [MESSAGE_ID]`, whose
    /// message id is optional).
    package var legacy: (messageID: String?, preview: String)?
    /// The config file's `title`, used by the legacy form.
    package var configuredTitle: String?
    /// `--encrypt` (true), `--no-encrypt` (false) or a request body's `encrypt`; `nil` leaves it to
    /// the configuration (`EncryptionDefaults.encrypt`).
    package var encrypt: Bool?
    /// `--placeholder-title`: the clear alert's title of an encrypted send; `nil` for the configured one.
    package var placeholderTitle: String?
    /// `--placeholder-body`: the clear alert's body of an encrypted send; `nil` for the configured one.
    package var placeholderBody: String?
    /// `--image`: an https URL of a picture the app's notification service extension downloads
    /// and attaches; sent beside `aps` as `image_url`, with `mutable-content: 1`.
    package var imageURL: String?
    /// `--volume`: a critical alert's volume, 0 to 1 (1 when `nil`). A notification is a critical
    /// alert when its interruption level is `critical` (`--critical`, `--urgency critical`).
    package var volume: Double?
    /// `--withdraw`: take back the delivered notifications whose identifier (the collapse id they
    /// were sent with) is this, with a background push the app handles (`withdrawal(of:)`).
    package var withdraw: String?

    /// An alert with nothing set; `build` refuses it until something is given to send.
    package init() {}

    /// A push that takes back the delivered notifications sent with collapse id `id`: a background
    /// push (priority 5) of `{"aps": {"content-available": 1}, "pushkit": {"withdraw": id}}`, which
    /// the app's sample handles with `removeDeliveredNotifications(withIdentifiers:)`.
    package static func withdrawal(of id: String) -> PushSpecification {
        var spec = PushSpecification()
        spec.pushType = .background
        spec.withdraw = id
        return spec
    }

    /// The member beside `aps` that carries this project's own instructions to the app
    /// (`{"withdraw": id}`; a question's buttons, see `QuestionPush`).
    package static let pushkitKey = "pushkit"

    /// Whether this is a critical alert: the interruption level `critical`, or a complete payload
    /// whose `aps` asks for it (`interruption-level: critical`, or a sound with `critical` set).
    package var isCriticalAlert: Bool {
        guard let payloadFile else { return content.interruptionLevel == .critical }
        guard let aps = (try? JSONValue.parse(payloadFile))?["aps"] else { return false }
        if aps["interruption-level"]?.stringValue == InterruptionLevel.critical.rawValue { return true }
        guard let flag = aps["sound"]?["critical"] else { return false }
        return flag.integerValue.map { $0 != 0 } ?? (flag != .null && flag != .bool(false))
    }

    /// The longest preview the legacy form sends before cutting it and adding "...".
    package static let legacyPreviewLimit = 100
    /// The key of a simulator `.apns` file that names the app; dropped from the payload.
    package static let simulatorBundleKey = "Simulator Target Bundle"

    /// What `build` produced.
    package struct Built: Sendable {
        /// The request, headers and payload, checked.
        package let request: APNsRequest
        /// Whether the body was shortened to fit the size limit.
        package let shortened: Bool
    }

    /// Builds and checks the request.
    ///
    /// An encrypted send (`encrypt`, else `encryption.encrypt`) is an alert: its payload, built and
    /// fitted as usual but within what is left once the clear placeholder and the sealing are
    /// counted (`ContentSealing.contentLimit`), becomes the request's `sealedContent`, and its
    /// `payload` the placeholder alert with `mutable-content: 1`, nothing else.
    /// - Parameters:
    ///   - bundleID: the configured topic; may be `nil` when a `.apns` file names the app.
    ///   - encryption: whether to encrypt when the specification does not say, and the placeholder.
    /// - Throws: `PayloadError` (exit 65) for a payload or header APNs would refuse, or
    ///   `ConfigurationError` (78) when no topic is known.
    package func build(
        bundleID configuredBundleID: String?, encryption: EncryptionDefaults = EncryptionDefaults()
    ) throws -> Built {
        var bundleID = configuredBundleID
        let payload: Data
        var shortened = false
        if let withdraw { try checkWithdrawal(withdraw) }
        // A withdrawal carries only the id, which APNs sees anyway as the collapse id it names:
        // the configuration's encryption does not apply to it.
        let sealing = withdraw == nil && (encrypt ?? encryption.encrypt)
        let placeholder = try sealing ? self.placeholder(encryption) : nil
        let limit =
            placeholder.map { clear in
                ContentSealing.contentLimit(clearBytes: clear.count, limit: pushType.maximumPayloadSize)
            } ?? pushType.maximumPayloadSize
        if let placeholder, limit < 0 {
            throw PayloadError.tooLarge(
                size: placeholder.count, limit: pushType.maximumPayloadSize,
                detail: " for the encrypted send's placeholder alone; shorten its title or body")
        }
        if let payloadFile {
            if content.liveActivity != nil {
                throw PayloadError.invalid(
                    "\(setting: .payloadFile) is a complete payload; it cannot be combined with \(setting: .liveActivity)"
                )
            }
            if imageURL != nil {
                throw PayloadError.invalid(
                    "\(setting: .payloadFile) is a complete payload; it cannot be combined with \(setting: .image)")
            }
            let (data, simulatorBundle) = try Self.completePayload(payloadFile)
            if bundleID == nil { bundleID = simulatorBundle }
            if placeholder != nil, data.count > limit {
                throw PayloadError.tooLarge(size: data.count, limit: limit, detail: Self.encryptedDetail)
            }
            if placeholder != nil, Self.wakesInBackground(data) { throw Self.silentEncryptedRefusal }
            payload = data
        } else {
            var content = try self.content(pushType: pushType, bundleID: bundleID)
            for text in data {
                let value = try? JSONValue.parse(Data(text.utf8))
                guard let object = value?.objectValue else {
                    throw PayloadError.invalid(
                        "\(setting: .data) must be a JSON object, e.g. '{\"message_id\":\"42\"}', not \(text)")
                }
                if object["aps"] != nil {
                    throw PayloadError.invalid(
                        "\(setting: .data) cannot set \"aps\"; use the notification flags or \(setting: .payloadFile)")
                }
                content.customData.merge(object) { _, new in new }
            }
            if let key = dataEnvelope, !content.customData.isEmpty {
                if key == "aps" { throw PayloadError.invalid("the custom data cannot go under \"aps\"") }
                content.customData = [key: .object(content.customData)]
            }
            if let withdraw { content.customData[Self.pushkitKey] = ["withdraw": .string(withdraw)] }
            // The image's URL is the app's own member, beside any envelope of a design's data.
            if let imageURL {
                try Self.checkImageURL(imageURL, pushType: pushType, content: content)
                content.customData[Self.imageKey] = .string(imageURL)
                content.mutableContent = true
            }
            let fitted = Result { () throws(PayloadError) in try PayloadFitter.fit(content, limit: limit) }
            if placeholder != nil, case .failure(.tooLarge(let size, let limit, let detail)) = fitted {
                throw PayloadError.tooLarge(size: size, limit: limit, detail: Self.encryptedDetail + detail)
            }
            (payload, shortened) = try fitted.get()
        }
        guard let bundleID, !bundleID.isEmpty else {
            throw ConfigurationError.noTopic
        }
        var request = APNsRequest(
            bundleID: bundleID, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: collapseID, apnsID: apnsID?.lowercased(), payload: placeholder ?? payload)
        if placeholder != nil { request.sealedContent = payload }
        try request.validate()
        return Built(request: request, shortened: shortened)
    }

    /// The longest withdrawal id: APNs' limit on a collapse id, in bytes.
    package static let withdrawIDLimit = APNsRequest.maximumCollapseIDBytes

    /// Whether `id` can be a notification's collapse id, so a withdrawal of it can take one back:
    /// 1 to `withdrawIDLimit` bytes without control characters.
    package static func isWithdrawalID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= withdrawIDLimit && !HeaderValue.hasControlCharacter(id)
    }

    /// Refuses a withdrawal that carries anything but the id, or an id no notification can have
    /// been sent with (empty, over 64 bytes, or with a control character).
    private func checkWithdrawal(_ id: String) throws(PayloadError) {
        guard Self.isWithdrawalID(id) else {
            throw PayloadError.invalid(
                "\(setting: .withdraw) must be the collapse id the notification was sent with: 1 to \(Self.withdrawIDLimit) bytes without control characters"
            )
        }
        if encrypt == true {
            throw PayloadError.invalid(
                "\(setting: .withdraw) sends a background push, which cannot be encrypted; drop \(setting: .encrypt)")
        }
        let extras: [(Bool, SendSetting)] = [
            (content.hasAlert || legacy != nil, .title),
            (content.badge != nil, .badge), (sound != nil, .sound), (content.category != nil, .category),
            (content.threadID != nil, .threadID), (content.interruptionLevel != nil, .interruptionLevel),
            (imageURL != nil, .image), (volume != nil, .volume), (!data.isEmpty, .data),
            (payloadFile != nil, .payloadFile), (content.liveActivity != nil, .liveActivity),
            (collapseID != nil, .collapseID), (pushType != .background, .pushType),
        ]
        if let (_, setting) = extras.first(where: \.0) {
            throw PayloadError.invalid(
                "\(setting: .withdraw) sends a background push that carries only the id; it cannot be combined with \(setting: setting)"
            )
        }
    }

    /// The member beside `aps` that carries `imageURL`.
    package static let imageKey = "image_url"
    /// The longest image URL, in characters (Unicode code points).
    package static let imageURLLimit = 2048

    /// Refuses an image URL that is not https, is too long or holds control characters or spaces,
    /// and an image on a push that shows nothing (only an alert runs the extension that attaches it).
    static func checkImageURL(_ text: String, pushType: APNsPushType, content: NotificationContent) throws(PayloadError)
    {
        guard pushType == .alert, content.hasAlert else {
            throw PayloadError.invalid(
                "\(setting: .image) needs an alert with a title or a body: the app attaches the image to the notification it shows"
            )
        }
        guard text.unicodeScalars.count <= imageURLLimit else {
            throw PayloadError.invalid("\(setting: .image) is longer than \(imageURLLimit) characters")
        }
        let lowered = text.lowercased()
        let rest = lowered.hasPrefix("https://") ? lowered.dropFirst("https://".count) : nil
        guard let rest, let host = rest.split(separator: "/", omittingEmptySubsequences: false).first, !host.isEmpty,
            !text.unicodeScalars.contains(where: Self.isRefusedInImageURL)
        else {
            throw PayloadError.invalid(
                "\(setting: .image) must be an https:// URL without spaces (the phone downloads it), not \"\(TerminalText.field(String(text.prefix(80))))\""
            )
        }
    }

    /// A space of any kind, a control character (C0, DEL, C1) or a byte-order mark: what an image
    /// URL may not hold (as the pattern `docs/openapi.yaml` gives: `\s` and the controls).
    static func isRefusedInImageURL(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value)
            || scalar.value == 0xfeff
    }

    /// Why an encrypted send cannot wake the app in the background: what reaches the phone is a
    /// placeholder alert (only an alert runs the extension that decrypts it), so a silent push
    /// would show as a visible notification, and the wake itself would be sealed where APNs
    /// cannot see it.
    static let silentEncryptedRefusal = PayloadError.invalid(
        "\(setting: .encrypt) and \(setting: .contentAvailable) cannot go together: an encrypted push reaches the phone as a visible placeholder alert, so a silent push would show, and the wake is sealed where APNs cannot see it; send it with \(setting: .encrypt) off"
    )

    /// Whether a complete payload asks for a background wake (`aps.content-available` other than 0).
    private static func wakesInBackground(_ payload: Data) -> Bool {
        guard let flag = (try? JSONValue.parse(payload))?["aps"]?["content-available"] else { return false }
        return flag.integerValue.map { $0 != 0 } ?? (flag != .null)
    }

    /// How a size error of an encrypted send says its limit is smaller.
    private static let encryptedDetail =
        " for an encrypted send (APNs' limit less the placeholder alert and the sealing)"

    /// The clear payload of an encrypted send: the placeholder alert and `mutable-content: 1`.
    /// - Throws: `PayloadError` (65) for a push type other than alert, a Live Activity, a
    ///   background wake (`content-available`), or a placeholder with neither a title nor a body.
    private func placeholder(_ encryption: EncryptionDefaults) throws(PayloadError) -> Data {
        guard pushType == .alert, content.liveActivity == nil else {
            throw PayloadError.invalid(
                "\(setting: .encrypt) is for alerts (the app's notification service extension decrypts them), not \(pushType.rawValue) pushes; send this one with \(setting: .encrypt) off"
            )
        }
        if content.contentAvailable { throw Self.silentEncryptedRefusal }
        var clear = NotificationContent()
        clear.title = (placeholderTitle ?? encryption.placeholderTitle).flatMap { $0.isEmpty ? nil : $0 }
        clear.body = (placeholderBody ?? encryption.placeholderBody).flatMap { $0.isEmpty ? nil : $0 }
        guard clear.title != nil || clear.body != nil else {
            throw PayloadError.invalid(
                "an encrypted notification's placeholder needs \(setting: .placeholderTitle) or \(setting: .placeholderBody)"
            )
        }
        clear.mutableContent = true
        // A critical alert sounds as one before the extension opens it: the level and the critical
        // sound travel in clear (they say only that it is urgent), the content sealed.
        if content.interruptionLevel == .critical, sound != "none" {
            clear.interruptionLevel = .critical
            clear.sound = sound ?? "default"
            clear.criticalVolume = volume ?? 1 // a volume outside 0 to 1 is refused with the content
        }
        return clear.payload.serialized()
    }

    private func content(pushType: APNsPushType, bundleID: String?) throws -> NotificationContent {
        var content = self.content
        if let legacy {
            content.title =
                content.title ?? configuredTitle ?? bundleID.flatMap { $0.split(separator: ".").last.map(String.init) }
            let preview = legacy.preview
            content.body =
                preview.count > Self.legacyPreviewLimit
                ? String(preview.prefix(Self.legacyPreviewLimit)) + "..." : preview
            content.badge = content.badge ?? 1
            if let messageID = legacy.messageID { content.customData["message_id"] = .string(messageID) }
        }
        if let liveActivity = content.liveActivity {
            guard pushType == .liveactivity else {
                throw PayloadError.invalid(
                    "\(setting: .liveActivity) needs push type liveactivity, not \(pushType.rawValue)")
            }
            try liveActivity.validate()
        }
        let hasAlert = content.hasAlert
        if pushType == .background {
            if hasAlert || content.badge != nil || sound != nil {
                throw PayloadError.invalid(
                    "background notifications carry no alert, badge or sound; drop them or use \(setting: .pushType) alert"
                )
            }
            content.contentAvailable = true
        } else if pushType == .alert, !hasAlert, content.badge == nil, !content.contentAvailable, data.isEmpty {
            throw PayloadError.nothingToSend(
                "nothing to send: give \(setting: .title)/\(setting: .body) (or MESSAGE_ID PREVIEW), \(setting: .badge), \(setting: .data) or \(setting: .payloadFile)"
            )
        }
        switch sound {
        case nil: content.sound = (pushType == .alert && hasAlert) ? "default" : nil
        case "none"?: content.sound = nil
        case let name?: content.sound = name
        }
        if let score = content.relevanceScore, !(0...1).contains(score) {
            throw PayloadError.invalid("\(setting: .relevanceScore) must be between 0 and 1, not \(score)")
        }
        if let badge = content.badge, badge < 0 {
            throw PayloadError.invalid("\(setting: .badge) must be 0 or more, not \(badge)")
        }
        try applyCriticalSound(to: &content, pushType: pushType)
        return content
    }

    /// Makes a critical alert's sound the critical sound dictionary at `volume` (1 by default), and
    /// refuses what a critical alert cannot be: silent, not an alert, or a volume outside 0 to 1;
    /// a volume on a push that is not a critical alert is refused too.
    private func applyCriticalSound(
        to content: inout NotificationContent, pushType: APNsPushType
    ) throws(PayloadError) {
        if let volume, !(volume.isFinite && (0...1).contains(volume)) {
            throw PayloadError.invalid("\(setting: .volume) must be from 0 to 1, not \(volume)")
        }
        guard content.interruptionLevel == .critical else {
            if volume != nil {
                throw PayloadError.invalid(
                    "\(setting: .volume) is a critical alert's volume; send it as a critical alert (\(setting: .interruptionLevel) critical)"
                )
            }
            return
        }
        guard pushType == .alert, content.hasAlert, content.liveActivity == nil else {
            throw PayloadError.invalid(
                "a critical alert needs an alert with \(setting: .title) or \(setting: .body): it is the notification the phone sounds for"
            )
        }
        guard sound != "none" else {
            throw PayloadError.invalid(
                "a critical alert plays a sound even when the phone is muted; it cannot be sent with \(setting: .sound) none"
            )
        }
        content.criticalVolume = volume ?? 1
    }

    /// Parses a complete payload; a simulator `.apns` file's bundle key is removed and returned.
    static func completePayload(_ bytes: Data) throws(PayloadError) -> (Data, String?) {
        guard !bytes.isEmpty else { throw PayloadError.invalid("\(setting: .payloadFile) is empty") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw PayloadError.invalid("\(setting: .payloadFile) is not valid JSON: \(error.detail)")
        }
        guard var object = value.objectValue else {
            throw PayloadError.invalid("\(setting: .payloadFile) must hold a JSON object, not a \(value.typeName)")
        }
        guard object["aps"]?.objectValue != nil else {
            throw PayloadError.invalid("\(setting: .payloadFile) has no \"aps\" object; APNs requires one")
        }
        guard let bundle = object.removeValue(forKey: simulatorBundleKey) else { return (bytes, nil) }
        return (JSONValue.object(object).serialized(), bundle.stringValue)
    }
}
