import Testing
@testable import PushKitFreeCore

@Suite("FCM registration tokens")
struct FCMDeviceTokenTests {
    func refusal(_ text: String) -> String {
        do {
            _ = try FCMDeviceToken(validating: text)
            return "accepted"
        } catch {
            return error.message
        }
    }

    @Test("today's shape is accepted and kept as given")
    func acceptsUsualShape() throws {
        let token = try FCMDeviceToken(validating: FCMFixtures.tokenText)
        #expect(token.text == FCMFixtures.tokenText)
        #expect(FCMDeviceToken.hasShape(FCMFixtures.tokenText))
    }

    @Test("100 and 4096 characters are the bounds")
    func bounds() {
        let head = "abc:"
        #expect(refusal(head + String(repeating: "A", count: 96)) == "accepted")
        #expect(
            refusal(head + String(repeating: "A", count: 95))
                == "registration token has 99 characters; expected 100 to 4096")
        #expect(refusal(head + String(repeating: "A", count: 4092)) == "accepted")
        #expect(
            refusal(head + String(repeating: "A", count: 4093))
                == "registration token has 4097 characters; expected 100 to 4096")
        #expect(refusal("") == "registration token is empty; expected 100 to 4096 characters")
    }

    @Test("exactly one colon, with something on both sides")
    func colons() {
        let body = String(repeating: "a", count: 120)
        #expect(refusal(body).hasPrefix("registration token has no ':'"))
        #expect(refusal("a:b:" + body).hasPrefix("registration token has 2 ':'"))
        #expect(refusal(":" + body).hasPrefix("registration token has nothing on one side of its ':'"))
        #expect(refusal(body + ":").hasPrefix("registration token has nothing on one side of its ':'"))
    }

    @Test("only the URL-safe base64 alphabet; the position is named, the token is not")
    func alphabet() {
        let tail = String(repeating: "b", count: 120)
        #expect(
            refusal("abc+def:" + tail)
                == "registration token has \"+\" at position 4; only letters, digits, '-', '_' and one ':' are allowed")
        #expect(refusal("ab/c:" + tail).hasPrefix("registration token has \"/\" at position 3"))
        #expect(refusal("abc :" + tail).hasPrefix("registration token has a space at position 4"))
        #expect(refusal("abc=:" + tail).hasPrefix("registration token has \"=\" at position 4"))
        #expect(refusal("abcé:" + tail).hasPrefix("registration token has \"é\" at position 4"))
        #expect(!refusal("abc+def:" + tail).contains(tail))
    }

    @Test("an APNs token does not have the shape")
    func apnsTokenIsNotFCM() {
        #expect(!FCMDeviceToken.hasShape(String(repeating: "0123456789abcdef", count: 4)))
        #expect(!FCMDeviceToken.hasShape(String(repeating: "0123456789abcdef", count: 8)))
    }

    @Test("masked like APNs tokens: the first 8 and the last 4 characters")
    func masked() throws {
        let token = try FCMDeviceToken(validating: FCMFixtures.tokenText)
        #expect(token.masked == "fJ3kQ9xY…w3Er")
    }

    @Test("a device token is recognized by its shape, or checked as the transport named")
    func recognized() throws {
        let apnsText = String(repeating: "0123456789ABCDEF", count: 4)
        let apns = try DeviceToken(validating: apnsText, transport: nil)
        #expect(apns.transport == .apns && apns.text == apnsText.lowercased() && apns.fcmToken == nil)
        let fcm = try DeviceToken(validating: FCMFixtures.tokenText, transport: nil)
        #expect(fcm.transport == .fcm && fcm.text == FCMFixtures.tokenText)
        #expect(fcm.fcmToken?.text == FCMFixtures.tokenText && fcm.masked == "fJ3kQ9xY…w3Er")
        #expect(fcm != apns)
        // Named outright: the other shape is refused with that transport's message.
        #expect(throws: DeviceTokenError.self) { try DeviceToken(validating: apnsText, transport: .fcm) }
        #expect(throws: DeviceTokenError.self) { try DeviceToken(validating: FCMFixtures.tokenText, transport: .apns) }
        // Without a colon a bad token gets the APNs message (a pasted NSData description).
        let spaced = "<" + apnsText + ">"
        #expect(throws: DeviceTokenError.self) { try DeviceToken(validating: spaced, transport: nil) }
        do {
            _ = try DeviceToken(validating: spaced, transport: nil)
        } catch {
            #expect(error.message.contains("only hex digits"))
        }
        do {
            _ = try DeviceToken(validating: "short:token", transport: nil)
        } catch {
            #expect(error.message.hasPrefix("registration token has 11 characters"))
        }
    }
}
