import Foundation
import Testing

/// The commands of each migration page (`docs/migrating/*.md`), run as shown against the emulator,
/// from a home directory holding what the page's design left behind (its registry, its config, its
/// token map). Each page's ```` ```sh ```` blocks run in order in one `bash -euo pipefail`.
///
/// A page's `register-apns serve` line would run until stopped, so there it is started in the
/// background with the page's `--listen` address but a free port (`0.0.0.0:8100` becomes
/// `0.0.0.0:0`), its loopback URL exported as `SERVE_URL`, and stopped at the end; the test then
/// makes the design's own calls against it and checks what reached APNs.
@Suite("migration pages: each page's commands, run as shown, replace the design")
struct MigrationPagesTests {
    /// The secret the pages' servers read (`~/.config/pushkit-free/serve.secret`).
    static let secret = "bWlncmF0aW9uLXBhZ2VzLXRlc3Qtc2VjcmV0LTAwMDE="

    /// The lines of every ```` ```sh ```` block of `docs/migrating/<page>.md`, in order.
    static func shellLines(_ page: String) throws -> [String] {
        let text = try String(contentsOfFile: RepositoryFiles.path("docs/migrating/\(page).md"), encoding: .utf8)
        var lines: [String] = []
        var inBlock = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") {
                inBlock = !inBlock && line == "```sh"
            } else if inBlock {
                lines.append(line)
            }
        }
        return lines
    }

    /// Defines `register-apns` for the page's script: `serve` starts in the background (see the
    /// suite's description) and exports `SERVE_URL`; anything else is the built tool.
    static let servePrelude = #"""
        serve_pids=()
        trap 'if [ ${#serve_pids[@]} -gt 0 ]; then kill "${serve_pids[@]}" 2>/dev/null; wait; fi' EXIT
        register-apns() {
          if [ "${1-}" != serve ]; then command register-apns "$@"; return; fi
          local log="$SCRATCH/serve.$RANDOM.log" arguments=() previous=""
          for argument in "$@"; do
            if [ "$previous" = --listen ]; then argument="${argument%:*}:0"; fi
            arguments+=("$argument"); previous=$argument
          done
          # The log exists before the background job opens it: sed below must not race its creation.
          : > "$log"
          command register-apns "${arguments[@]}" > /dev/null 2> "$log" &
          serve_pids+=($!)
          for _ in $(seq 1500); do
            local port
            port=$(sed -n -E 's|.*listening on http://[^ ]*:([0-9]+)$|\1|p' "$log" | head -1)
            if [ -n "$port" ]; then export SERVE_URL="http://127.0.0.1:$port"; return 0; fi
            kill -0 "${serve_pids[-1]}" 2>/dev/null || break
            sleep 0.02
          done
          echo "register-apns serve did not start:" >&2; cat "$log" >&2; return 1
        }
        """#

    /// A `DocsHome` holding what the page's design left behind, and the page's commands run there.
    struct Scene {
        let docs: DocsHome
        var home: String { docs.home }
        var keyPath: String { docs.keyPath }
        var emulator: RunningEmulator { docs.emulator }

        init() throws {
            docs = try DocsHome(topic: "com.example.app")
            try FileManager.default.createDirectory(
                atPath: docs.home + "/.config/pushkit-free", withIntermediateDirectories: true)
        }

        /// The key settings as a config file's members.
        var keySettings: [String: Any] {
            ["team_id": DocsHome.teamID, "key_id": DocsHome.keyID, "bundle_id": "com.example.app", "key_path": keyPath]
        }

        /// Writes `value` as JSON at `relative` under HOME (directories made), mode 0600.
        func writeJSON(_ relative: String, _ value: Any) throws {
            let path = home + "/" + relative
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try JSONSerialization.data(withJSONObject: value).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o600)
        }

        /// The serve secret file the pages name.
        func writeSecret() throws {
            let path = home + "/.config/pushkit-free/serve.secret"
            try (MigrationPagesTests.secret + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o600)
        }

        /// The page's commands, then `after` (the design's callers), in one bash; fails the test
        /// with both outputs when it exits non-zero.
        func run(page: String, before: String = "", after: String = "") throws {
            let script = [
                "set -euo pipefail", servePrelude, "cd \"$HOME\"", before,
                try MigrationPagesTests.shellLines(page).joined(separator: "\n"), after,
            ].joined(separator: "\n")
            let result = try docs.bash(script, extra: ["SCRATCH": docs.directory.path])
            #expect(
                result.status == 0,
                "docs/migrating/\(page).md: exit \(result.status)\n\(result.stdout)\n\(result.stderr)")
        }

        /// The payloads APNs received, waiting for `count`.
        func payloads(_ count: Int) -> [[String: Any]] {
            emulator.waitForRecords(count).compactMap { $0["payload"] as? [String: Any] }
        }
    }

    /// `curl` with the secret in a header read from a file (never on a command line), JSON body `$2`.
    static func call(_ path: String, _ body: String, header: String = "Authorization: Bearer") -> String {
        """
        printf '%s %s\\n' '\(header)' "$(cat ~/.config/pushkit-free/serve.secret)" > "$SCRATCH/auth.header"
        curl -fsS -X POST "$SERVE_URL\(path)" -H @"$SCRATCH/auth.header" -H 'Content-Type: application/json' \\
          -d '\(body)'
        echo

        """
    }

    @Test("openclaw.md: the service's devices.db imported, serve on its routes, and its send reaches every phone")
    func openClaw() throws {
        let scene = try Scene()
        try scene.writeSecret()
        try FileManager.default.createDirectory(atPath: scene.home + "/openclaw", withIntermediateDirectories: true)
        let spec =
            #"{"rows": [{"token": "\#(hexToken(1))", "device_name": "Ada's iPhone"}, {"token": "\#(hexToken(2))", "device_name": "iPad"}]}"#
        let made = try BuiltTool.runSystem(
            "python3", [RepositoryFiles.path("Tests/Tools/make_devices_db.py"), scene.home + "/openclaw/devices.db"],
            stdin: Data(spec.utf8))
        #expect(made.status == 0, "\(made.stderr)")
        try scene.writeJSON(".config/pushkit-free/config.json", scene.keySettings)
        try scene.run(
            page: "openclaw",
            after: Self.call(
                // As a caller of the service may write it: pydantic reads "2" as 2, and an empty
                // subtitle is left out.
                "/api/v1/notifications/send",
                #"{"title": "OpenClaw", "body": "Your build is green", "badge": "2", "subtitle": ""}"#,
                header: "X-OpenClaw-Auth:"))
        let payloads = scene.payloads(2)
        #expect(payloads.count == 2)
        for payload in payloads {
            let aps = payload["aps"] as? [String: Any]
            #expect(aps?["category"] as? String == "OPENCLAW_MESSAGE" && aps?["thread-id"] as? String == "openclaw")
            #expect(aps?["badge"] as? Int == 2, "\(payload)")
            #expect((aps?["alert"] as? [String: Any])?["subtitle"] == nil, "\(payload)")
        }
    }

    @Test("proxy-chat.md: serve as shown; the app's subscription and the proxy's trigger reach the phone")
    func proxyChat() throws {
        let scene = try Scene()
        try scene.writeSecret()
        let subscribe =
            #"{"cwd": "/srv/app", "installation_id": "ada-iphone", "apns_token": "\#(hexToken(3))", "agent_display_name": "app@server"}"#
        try scene.writeJSON(".config/pushkit-free/config.json", scene.keySettings)
        try scene.run(
            page: "proxy-chat",
            after: Self.call("/registerSubscription", subscribe)
                + Self.call("/triggerReplyFinished", #"{"cwd": "/srv/app", "message_preview": "Done."}"#))
        let payload = scene.payloads(1).first
        #expect(payload?["type"] as? String == "reply_finished" && payload?["cwd"] as? String == "/srv/app")
        #expect(
            (payload?["aps"] as? [String: Any])?["alert"] as? NSDictionary == ["title": "app@server", "body": "Done."])
    }

    @Test("sven.md: the design's own config and token map, the check, and the legacy call delivering")
    func sven() throws {
        let scene = try Scene()
        var config = scene.keySettings
        config["use_sandbox"] = true
        try scene.writeJSON("dispatch/state/sven-push-config.json", config)
        try scene.writeJSON("dispatch/state/sven-apns-tokens.json", ["ada-iphone": hexToken(4)])
        try scene.writeSecret()
        try scene.run(page: "sven")
        let payload = scene.payloads(1).first
        #expect((payload?["aps"] as? [String: Any]).map { "\($0)" }?.contains("Hello from the new sender") == true)
        #expect(payload?["message_id"] as? String == "msg-1")
        #expect(scene.emulator.records().first?["device_token"] as? String == hexToken(4))
    }

    @Test("ember.md: the config's ember-briefing profile and send-push --due briefing, to a device whose time has come")
    func ember() throws {
        let scene = try Scene()
        var config = scene.keySettings
        config["profile"] = "ember-briefing"
        try scene.writeJSON(".config/pushkit-free/config.json", config)
        try scene.writeSecret()
        // A briefing at 00:00 UTC set yesterday: today's is due now. (Set today, after 00:00, today
        // counts as done; so the day it was last sent is moved back to yesterday.)
        try scene.run(
            page: "ember",
            before: """
                register-apns add ember-phone \(hexToken(5))
                register-apns briefing ember-phone --time 00:00 --timezone UTC
                python3 - "$HOME/.local/state/pushkit-free/devices.json" <<'PY'
                import datetime, json, sys
                registry = json.load(open(sys.argv[1]))
                yesterday = datetime.datetime.now(datetime.timezone.utc).date() - datetime.timedelta(days=1)
                registry["devices"]["ember-phone"]["briefing"]["last_sent_on"] = yesterday.isoformat()
                json.dump(registry, open(sys.argv[1], "w"))
                PY
                """)
        let payload = scene.payloads(1).first
        #expect(payload?["destination"] as? String == "briefing")
        #expect((payload?["aps"] as? [String: Any])?["category"] as? String == "BRIEFING")
    }
}
