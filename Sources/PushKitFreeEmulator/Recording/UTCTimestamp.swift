import PushKitFreeCore

/// Timestamps as the emulator writes them: UTC, ISO 8601, milliseconds.
enum UTCTimestamp {
    /// `2025-01-31T12:34:56.789Z` for `milliseconds` since 1970.
    static func iso8601(milliseconds: Int64) -> String {
        String(decoding: iso8601Bytes(milliseconds: milliseconds), as: UTF8.self)
    }

    /// `12:34:56.789` (UTC) for `milliseconds` since 1970: the clock time in one-line summaries.
    static func clockTime(milliseconds: Int64) -> String {
        String(decoding: iso8601Bytes(milliseconds: milliseconds)[11..<23], as: UTF8.self)
    }

    /// The 24 bytes of `iso8601(milliseconds:)` (this runs per request).
    static func iso8601Bytes(milliseconds: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        ISO8601Timestamp.append(milliseconds: milliseconds, to: &bytes)
        return bytes
    }
}
