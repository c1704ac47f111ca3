import PushKitFreeCore

extension GatewaySession {
    /// The settings a `briefing_config` message carries (`BriefingSettings(members:)`): a zone the tz
    /// database lacks is 422, any other problem 400. `last_sent_on` is the server's to keep, so a
    /// message's is ignored.
    static func briefingSettings(_ members: [String: JSONValue]) throws(EndpointError) -> BriefingSettings {
        var members = members
        members["last_sent_on"] = nil
        if let zone = members["timezone"], let name = zone.stringValue, !name.isEmpty {
            do throws(BriefingSettingsError) {
                _ = try BriefingSettings.validatedTimeZone(zone)
            } catch {
                throw .invalidToken(error.message)
            }
        }
        do throws(BriefingSettingsError) {
            return try BriefingSettings(members: members)
        } catch {
            throw .badRequest(error.message)
        }
    }
}
