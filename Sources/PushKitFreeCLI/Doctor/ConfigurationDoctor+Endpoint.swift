import PushKitFreeCore

extension ConfigurationDoctor {
    /// The settings the tools that ask questions use (`endpoint`, `endpoint_secret_file`), when
    /// either is present: the URL, and the secret file read as `ask-push` reads it (its content
    /// never shown). Offline: whether serve takes the secret is for `ask-push` to find.
    func endpointFindings() -> [DoctorFinding] {
        let c = configuration
        guard c.endpoint != nil || c.endpointSecretFile != nil else { return [] }
        var findings: [DoctorFinding] = []
        if let endpoint = c.endpoint {
            let clear = endpoint.value.hasPrefix("http://") && !Self.isLoopback(endpoint.value)
            findings.append(
                DoctorFinding(
                    setting: "endpoint", value: endpoint.value, source: endpoint.source.kind,
                    severity: clear ? .warning : .ok,
                    message: clear
                        ? "the secret travels in clear to another machine; use https:// (serve's --tls-cert)" : ""))
        } else {
            findings.append(
                DoctorFinding(
                    setting: "endpoint", value: "(none)", source: "", severity: .warning,
                    message: "endpoint_secret_file is set, but no endpoint: set --endpoint, PUSHKIT_ENDPOINT or "
                        + "endpoint to register-apns serve's URL for ask-push and pushkit-mcp's questions"))
        }
        guard let file = c.endpointSecretFile else {
            findings.append(
                DoctorFinding(
                    setting: "endpoint secret", value: "(none)", source: "", severity: .error,
                    message: "no endpoint secret: set --secret-file, PUSHKIT_ENDPOINT_SECRET_FILE or "
                        + "endpoint_secret_file to the file holding serve's secret"))
            return findings
        }
        do {
            let (_, warnings) = try EndpointAccess.readSecret(file)
            findings.append(
                DoctorFinding(
                    setting: "endpoint secret", value: file.value, source: file.source.kind,
                    severity: warnings.isEmpty ? .ok : .warning, message: warnings.first ?? ""))
        } catch {
            findings.append(
                DoctorFinding(
                    setting: "endpoint secret", value: file.value, source: file.source.kind, severity: .error,
                    message: error.message))
        }
        return findings
    }

    /// Whether `url`'s host is this machine (127.0.0.0/8, `localhost`, `[::1]`).
    static func isLoopback(_ url: String) -> Bool {
        guard let scheme = url.firstIndex(of: ":"), url[scheme...].hasPrefix("://") else { return false }
        let authority = url[url.index(scheme, offsetBy: 3)...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@").last.map(String.init) ?? ""
        return host.hasPrefix("127.") || host == "localhost" || host.hasPrefix("localhost:") || host.hasPrefix("[::1]")
    }
}
