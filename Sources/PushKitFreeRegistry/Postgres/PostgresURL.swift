import PushKitFreeCore
/// A PostgreSQL connection URL as `state_file` holds it, and how it is shown.
///
/// The URL goes to libpq unchanged (`postgres://user@host:port/db?sslmode=verify-full&...`), so every
/// libpq setting works, and what the URL leaves out comes from the `PG*` environment, `PGPASSFILE`
/// (`~/.pgpass`) and `PGSERVICE` as for `psql`. A password in it is never shown: every message
/// uses `masked(_:)`.
package enum PostgresURL {
    /// The schemes libpq takes.
    static let schemes = ["postgres://", "postgresql://"]

    /// Whether `location` is a PostgreSQL URL rather than a file path.
    package static func isDatabaseURL(_ location: String) -> Bool {
        schemes.contains { location.lowercased().hasPrefix($0) }
    }

    /// `url` with any password replaced by `***`: the one in `user:password@` and any
    /// `password=` parameter.
    package static func masked(_ url: String) -> String {
        guard let scheme = schemes.first(where: { url.lowercased().hasPrefix($0) }) else { return url }
        var rest = Substring(url.dropFirst(scheme.count))
        var masked = String(url.prefix(scheme.count))
        // The authority ends at the first "/" or "?"; its user information at its last "@".
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            masked += authority[..<colon] + ":***" + authority[at...]
        } else {
            masked += authority
        }
        rest = rest[authorityEnd...]
        guard let question = rest.firstIndex(of: "?") else { return masked + rest }
        masked += rest[...question]
        let parameters = rest[rest.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
        masked += parameters.map { parameter in
            let name = parameter.prefix { $0 != "=" }
            return name.lowercased() == "password" && name.count < parameter.count ? name + "=***" : String(parameter)
        }.joined(separator: "&")
        return masked
    }
}
