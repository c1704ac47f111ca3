import PushKitFreeCLI
import PushKitFreeCore
import PushKitFreeTransport

/// The push the options describe: what `SendRun` prepares and sends.
extension SendPush {
    /// What the options ask to send, with the config file's title and payload profile.
    /// - Parameter deliveryPolicy: for resolving `--input-push-channel` (by name, with the management API).
    func specification(_ configuration: Configuration, deliveryPolicy: DeliveryPolicy) throws -> PushSpecification {
        var spec = PushSpecification()
        spec.content.title = title
        spec.content.subtitle = subtitle
        let bodyText =
            body == "-"
            ? try StandardInputText.read(
                trimmingTrailingNewlines: true, hook: backgroundOptions.hook, named: "standard input (--body -)")
            : body
        spec.content.body = backgroundOptions.hook ? nil : bodyText
        spec.content.badge = badge
        spec.content.category = category
        spec.content.threadID = threadID
        spec.content.mutableContent = mutableContent
        spec.content.contentAvailable = contentAvailable
        spec.content.interruptionLevel = critical ? .critical : interruptionLevel
        spec.content.relevanceScore = relevanceScore
        spec.content.targetContentID = targetContentID
        spec.imageURL = image
        spec.volume = volume
        spec.withdraw = withdraw
        spec.sound = sound
        spec.data = data
        if let payloadFile {
            spec.payloadFile = try InputFile.read(
                payloadFile, named: "--payload-file \(payloadFile)", limit: InputFile.payloadLimit)
        }
        spec.pushType =
            pushType ?? (withdraw != nil ? .background : liveActivity.event == nil ? .alert : .liveactivity)
        spec.content.liveActivity = try liveActivity.model()
        if let channel = liveActivity.inputPushChannel {
            let target = try BroadcastChannels(
                configuration: configuration, deliveryPolicy: deliveryPolicy,
                transports: CurlTransportSource(keepsClient: false)
            ).resolve(channel)
            if target.environment != configuration.environment.value {
                ToolSupport.warn(
                    "channel \(target.label) lives in \(target.environment.rawValue), but this start goes to "
                        + "\(configuration.environment.value.rawValue) devices: a device cannot subscribe to it",
                    tool: Self.tool)
            }
            spec.content.liveActivity?.inputPushChannel = target.id
        }
        spec.priority = priority
        spec.expiration = expiration
        spec.collapseID = collapseID
        spec.apnsID = apnsID
        spec.encrypt = encryption.encrypt
        spec.placeholderTitle = encryption.placeholderTitle
        spec.placeholderBody = encryption.placeholderBody
        if backgroundOptions.hook {
            // The reply: PREVIEW, else --body, else standard input.
            let preview =
                try legacy.count == 2
                ? legacy[1] : bodyText ?? StandardInputText.read(trimmingTrailingNewlines: true, hook: true)
            guard !preview.allSatisfy(\.isWhitespace) else {
                throw PayloadError.invalid("nothing to send: no reply on standard input, and no --body or PREVIEW")
            }
            spec.legacy = (legacy.first, preview)
        } else if legacy.count == 2 {
            spec.legacy = (legacy[0], legacy[1])
        }
        spec.configuredTitle = try configuration.file.string("title")
        // The app's conventions, declared once in the config file (or named by --profile): what
        // the flags leave unset.
        if let profile {
            PayloadProfile.named[profile]?.apply(to: &spec) // `none`, or a name validate() checked
        } else {
            try PayloadProfile.configured(in: configuration.file)?.apply(to: &spec)
        }
        return spec
    }
}
