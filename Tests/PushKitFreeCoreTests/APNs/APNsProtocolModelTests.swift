import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("APNs protocol model")
struct APNsProtocolModelTests {
    @Test("eleven push types, raw values as the header, Apple's topic suffixes")
    func pushTypes() {
        #expect(APNsPushType.allCases.count == 11)
        #expect(APNsPushType(rawValue: "liveactivity")?.topic(forBundleID: "com.a") == "com.a.push-type.liveactivity")
        #expect(APNsPushType.voip.topicSuffix == ".voip")
        #expect(APNsPushType.pushtotalk.topicSuffix == ".voip-ptt")
        #expect(APNsPushType.fileprovider.topicSuffix == ".pushkit.fileprovider")
        #expect(APNsPushType.location.topicSuffix == ".location-query")
        #expect(APNsPushType.alert.topicSuffix.isEmpty && APNsPushType.background.topicSuffix.isEmpty)
        #expect(APNsPushType.voip.maximumPayloadSize == 5120 && APNsPushType.alert.maximumPayloadSize == 4096)
    }

    @Test("known reasons carry Apple's status; unknown ones parse and have none")
    func reasons() {
        #expect(APNsReason(rawValue: "BadDeviceToken") == .badDeviceToken)
        #expect(APNsReason.badDeviceToken.status == 400)
        #expect(APNsReason.expiredProviderToken.status == 403)
        #expect(APNsReason.badPath.status == 404)
        #expect(APNsReason.methodNotAllowed.status == 405)
        #expect(APNsReason.unregistered.status == 410)
        #expect(APNsReason.payloadTooLarge.status == 413)
        #expect(APNsReason.tooManyProviderTokenUpdates.status == 429)
        #expect(APNsReason.internalServerError.status == 500)
        #expect(APNsReason.shutdown.status == 503)
        let future = APNsReason(rawValue: "SomethingNew")
        #expect(!future.isKnown && future.status == nil && future.rawValue == "SomethingNew")
        #expect(
            APNsReason.allKnown.count == 39,
            "32 in Apple's table plus BadPayload plus the channel API's 6 (InvalidPushType is shared)")
        for reason: APNsReason in [
            .missingChannelID, .badChannelID, .channelNotRegistered, .cannotCreateChannelConfig, .missingPushType,
            .featureNotEnabled,
        ] {
            #expect(reason.status == 400, "\(reason): Apple's channel table has no 410")
        }
        #expect(APNsRejection(.badTopic) == APNsRejection(status: 400, reason: .badTopic))
    }

    @Test("priorities: 10, 5, 1; background allows only 5")
    func priorities() {
        #expect(APNsPriority(rawValue: 7) == nil)
        #expect(APNsPriority.immediate.isAllowed(for: .alert))
        #expect(!APNsPriority.immediate.isAllowed(for: .background))
        #expect(APNsPriority.default(for: .background) == .considerPower)
    }
}
