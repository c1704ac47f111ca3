import PushKitFreeCore

/// Renders doctor findings as an aligned plain-text report, one setting a line, then a verdict.
package enum DoctorReport {
    /// The report of `findings`, values and messages escaped for the terminal, ending in "all good" or
    /// the number of problems to fix.
    package static func render(_ findings: [DoctorFinding]) -> String {
        let settingWidth = findings.map(\.setting.count).max() ?? 0
        let valueWidth = min(findings.map { TerminalText.escaped($0.value).count }.max() ?? 0, 60)
        var text = ""
        for finding in findings {
            let mark =
                switch finding.severity {
                case .ok: "ok  "
                case .warning: "warn"
                case .error: "FAIL"
                }
            let source = finding.source.isEmpty ? "" : "[\(finding.source)]"
            // Values and messages come from files, the environment and flags: shown escaped, so a
            // topic or path holding control characters cannot rewrite the terminal or fake a line.
            let value = TerminalText.escaped(finding.value)
            var line = "\(mark)  \(pad(finding.setting, settingWidth))  \(pad(value, valueWidth))  \(pad(source, 9))"
            if !finding.message.isEmpty { line += "  " + TerminalText.escaped(finding.message) }
            text += String(line.reversed().drop(while: { $0 == " " }).reversed()) + "\n"
        }
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.filter { $0.severity == .warning }.count
        text +=
            errors == 0
            ? "all good\(warnings > 0 ? " (\(warnings) warning\(warnings == 1 ? "" : "s"))" : "")\n"
            : "\(errors) problem\(errors == 1 ? "" : "s") to fix\n"
        return text
    }

    /// The report as one JSON object: `ok` (no error), `problems` (how many errors), `warnings`,
    /// and `findings`, each with `setting`, `value`, `source`, `severity` and `message`.
    package static func json(_ findings: [DoctorFinding]) -> String {
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.filter { $0.severity == .warning }.count
        let list: [JSONValue] = findings.map { finding in
            .object([
                "setting": .string(finding.setting), "value": .string(finding.value),
                "source": .string(finding.source), "severity": .string(finding.severity.rawValue),
                "message": .string(finding.message),
            ])
        }
        let report: [String: JSONValue] = [
            "ok": .bool(errors == 0), "problems": .number(Double(errors)), "warnings": .number(Double(warnings)),
            "findings": .array(list),
        ]
        return JSONValue.object(report).serializedString(pretty: true) + "\n"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
