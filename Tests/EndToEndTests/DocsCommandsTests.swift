import Foundation
import Testing

/// Every command the documentation shows is run here, so the pages cannot drift from the tools.
///
/// Each page of `DocsPage.run` (README.md, the guide, the reference, the internals, and the pages of
/// hooks and cron, `register-apns` and `register-apns serve`) is run on its own, from a `DocsHome`
/// of its own:
/// - ```` ```sh ```` blocks are run in order, each by `bash -euo pipefail`, in one working directory
///   and one `HOME`, with the variables a block exports carried to the next. The working directory
///   stands for the source checkout: its `examples/` is the repository's.
/// - ```` ```console ```` blocks may hold only `$ make ...` lines: `make demo` is run by the demo's
///   own test, `make test` is this suite, `make install` and `make uninstall` are run by
///   `CallerSeamsTests`.
/// - ```` ```swift ```` and ```` ```kotlin ```` blocks are the app's side (iOS, Android): they are
///   not run (Linux has neither SDK), so they are kept short (at most `swiftLineLimit` lines).
/// - ```` ```text ````, ```` ```json ````, ```` ```python ````, ```` ```ini ```` and ```` ```sql ````
///   blocks are output, synopses, files, schemas and code taken from `examples/` (which the
///   examples' tests run). A `$ ` line of a ```` ```text ```` transcript must parse as a shell command.
/// - A block that reads `push.log` runs once the page's background sends have finished, the way a
///   user looks a moment later.
///
/// What a test cannot reach is stood in for, so that the pages' commands run unchanged:
/// - **Apple.** One `apns-emulator` stands in for both APNs environments (`APNS_PRODUCTION_URL`,
///   `APNS_SANDBOX_URL`, `APNS_CA_FILE`), trusting the key the pages name
///   (`~/keys/AuthKey_ABCDE12345.p8`, made here by openssl). Every push it receives must be accepted.
/// - **Fixed ports.** An `apns-emulator` a page starts listens on a free port of the page's instead
///   of the default 2197, and `apns-emulator --print-env` names that port; port 8100 (where the
///   pages' `register-apns serve` listens) becomes another free port. Another test run may hold
///   either port.
/// - **A server in the foreground.** `register-apns serve` would run until stopped: it is started
///   in the background instead, and the block goes on once it listens.
/// - **Root and systemd** (the service sections). Paths under `/etc/` and `/var/lib/` are moved
///   under a scratch directory before a block runs. `sudo` runs its command as the test's user (its
///   options, such as `-u pushkit`, dropped); `useradd`, `userdel` and `chown` only write what they
///   were asked to a list; `install -o/-g` installs without changing the owner. `systemctl` starts a
///   service by its `ExecStart=`, with its `Environment=` (specifiers `%E` and `%S` expanded) and
///   its `StateDirectory=`, in the environment a service has (plus the stand-in Apple), and stops it
///   with SIGTERM; a timer it only checks for and notes, without running it (the examples' tests run
///   the timers' services). `journalctl -u UNIT` prints what a service wrote. `crontab` keeps the
///   user's crontab in a file of the page's; `loginctl` notes what it was asked. Whatever a page
///   started is stopped at the end.
@Suite("docs commands: every command the documentation shows runs")
struct DocsCommandsTests {
    /// What each page's commands assume: the bundle id they send to, and how many ```` ```sh ````
    /// blocks the page has at least (so a block that lost its fence's language is noticed).
    static let expectations: [String: (topic: String, shellBlocks: Int)] = [
        "README.md": ("com.yourcompany.Sven", 2),
        "docs/guide.md": ("com.yourcompany.Sven", 8),
        "docs/reference.md": ("com.yourcompany.Sven", 5),
        "docs/internals.md": ("com.yourcompany.Sven", 0),
        "docs/hooks-and-cron.md": ("com.yourcompany.Sven", 5),
        "docs/register-apns.md": ("com.yourcompany.Sven", 2),
        "docs/register-apns-serve.md": ("com.yourcompany.Sven", 1),
    ]

    /// The longest an app sample (a ```` ```swift ```` or ```` ```kotlin ```` block, not run) may be.
    static let swiftLineLimit = 40

    /// The kinds of block a page may hold besides ```` ```sh ```` (run) and ```` ```console ````.
    static let declaredKinds: Set<String> = ["text", "json", "python", "ini", "sql", "swift", "kotlin"]

    @Test("every fenced block is of a known kind; console blocks hold only make targets", arguments: DocsPage.run)
    func blockKinds(page: DocsPage) throws {
        try Self.checkKinds(page)
        let shellBlocks = try page.blocks().filter { $0.language == "sh" }.count
        let minimum = try #require(Self.expectations[page.path], "\(page.path) has no expectations").shellBlocks
        #expect(shellBlocks >= minimum, "\(page.path): \(shellBlocks) sh blocks, expected at least \(minimum)")
    }

    @Test("the migration pages' blocks are of known kinds (MigrationPagesTests runs their sh blocks)")
    func migrationBlockKinds() throws {
        #expect(DocsPage.migrating.count >= 4)
        for page in DocsPage.migrating { try Self.checkKinds(page) }
    }

    static func checkKinds(_ page: DocsPage) throws {
        for block in try page.blocks() {
            let place = "\(page.path):\(block.firstLine)"
            #expect(
                block.language == "sh" || block.language == "console" || declaredKinds.contains(block.language),
                "\(place): a ```\(block.language) block is neither run nor declared as output")
            if block.language == "console" {
                for line in block.lines where !line.isEmpty {
                    #expect(line.hasPrefix("$ make "), "\(place): \(line)")
                }
            }
            if block.language == "swift" || block.language == "kotlin" {
                #expect(
                    block.lines.count <= swiftLineLimit,
                    "\(place): an app sample is not run, so it stays short (\(block.lines.count) lines)")
            }
        }
    }

    @Test("every '$ ' line of the pages' transcripts and of the demo's output can be pasted into a shell")
    func transcriptsArePasteable() throws {
        let transcripts = try (DocsPage.run + DocsPage.migrating).flatMap { try $0.blocks() }
            .filter { $0.language == "text" }.flatMap(\.lines)
        let shownByDemo = try BuiltTool.runSystem(
            "bash",
            [
                "-c",
                """
                BIN=/bin
                eval "$(sed -n '/^shown() {/,/^}/p' \(RepositoryFiles.path("examples/demo.sh")))"
                shown register-apns phone 7f1c --name "Ada's iPhone" --body 'say "hi" for $5' plain
                """,
            ])
        #expect(
            shownByDemo.stdout == #"register-apns phone 7f1c --name "Ada's iPhone" --body "say \"hi\" for \$5" plain"#)
        let lines = transcripts.filter { $0.hasPrefix("$ ") }.map { String($0.dropFirst(2)) } + [shownByDemo.stdout]
        #expect(lines.count >= 5)
        for line in lines {
            // Parsed by bash into words, each printed on its own line: a stray quote fails to parse.
            let parsed = try BuiltTool.runSystem(
                "bash", ["-c", "eval \"set -- $1\" && printf '%s\\n' \"$@\"", "_", line])
            #expect(parsed.status == 0, "not pasteable: \(line)\n\(parsed.stderr)")
        }
    }

    @Test("every relative link of the documentation reaches a file, and every anchor a heading of it")
    func linksResolve() throws {
        let documents = ["README.md", "CHANGELOG.md"] + DocsPage.all.map(\.path)
        var checked = 0
        for document in documents {
            let page = DocsPage(path: document)
            for (line, target) in try page.links() where !target.contains("://") && !target.hasPrefix("mailto:") {
                let place = "\(document):\(line): \(target)"
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                    .map(String.init)
                let file =
                    parts[0].isEmpty
                    ? document
                    : URL(fileURLWithPath: RepositoryFiles.path(document)).deletingLastPathComponent()
                        .appendingPathComponent(parts[0]).standardized.path
                        .replacingOccurrences(of: RepositoryFiles.root + "/", with: "")
                let exists = FileManager.default.fileExists(atPath: RepositoryFiles.path(file))
                #expect(exists, "\(place): no such file")
                if exists, parts.count == 2, file.hasSuffix(".md") {
                    let found = try DocsPage(path: file).anchors().contains(parts[1])
                    #expect(found, "\(place): no such heading in \(file)")
                }
                checked += 1
            }
        }
        #expect(checked >= 100)
    }

    @Test("a page's Contents line links each of its sections (its ## headings), in their order")
    func contentsListEverySection() throws {
        var checked = 0
        for page in [DocsPage(path: "README.md")] + DocsPage.all {
            let text = try page.text()
            guard let start = text.range(of: "**Contents:**") else { continue }
            let line = text[start.upperBound...].components(separatedBy: "\n\n")[0]
            let listed = line.matches(of: /\]\(#([^)\s]+)\)/).map { String($0.1) }
            let sections = try page.headings().filter { $0.level == 2 }.map(\.anchor)
            #expect(listed == sections, "\(page.path): the Contents line lists \(listed), the page has \(sections)")
            checked += 1
        }
        #expect(checked >= 4)
    }

    @Test("every sh block runs, in order, against the emulator", arguments: DocsPage.run)
    func shellBlocksRun(page: DocsPage) throws {
        let expectations = try #require(Self.expectations[page.path])
        let run = try PageRun(page, topic: expectations.topic)
        defer { run.stopStarted() }
        let outputs = try run.runShellBlocks()
        #expect(outputs.count >= expectations.shellBlocks)
        let records = run.docs.emulator.records()
        #expect(
            records.allSatisfy { $0["status"] as? Int == 200 },
            "every push \(page.path) sends is accepted: \(records.filter { $0["status"] as? Int != 200 })")

        func payloads(containing text: String) -> Bool {
            records.contains { ($0["payload"] as? [String: Any]).map { "\($0)".contains(text) } ?? false }
        }
        switch page.path {
        case "README.md":
            #expect(
                outputs.contains { $0.result.stdout.contains(#""body":"My first push""#) },
                "the first push reached the page's own emulator, whose record the page shows")
            #expect(payloads(containing: "Hello from the server"), "the push against Apple reached the stand-in APNs")
        case "docs/guide.md":
            #expect(payloads(containing: "Hello from the server"), "the guide's first push reached the stand-in APNs")
            #expect(run.serviceLogs().contains("POST /register-apns 200"), "the app's registration reached the service")
            #expect(
                outputs.contains { $0.result.stdout.contains("ok    fcm (online)") },
                "the FCM trial had the page's emulator validate a message")
            #expect(
                outputs.contains { $0.result.stdout.contains(#""provider":"fcm","kind":"send""#) },
                "the FCM trial's push reached the page's emulator as FCM")
        case "docs/hooks-and-cron.md":
            #expect(
                records.contains { ($0["payload"] as? [String: Any])?["message_id"] as? String == "m1" },
                "the reply hook's push reached the stand-in APNs")
            let crontab = (try? String(contentsOfFile: run.scratch + "/crontab", encoding: .utf8)) ?? ""
            #expect(crontab.contains("briefing.py due"), "the example's lines are in the crontab: \(crontab)")
            let timers = (try? String(contentsOfFile: run.scratch + "/timers", encoding: .utf8)) ?? ""
            #expect(timers == "briefing-morning.timer\nbriefing-evening.timer\n", "both timers enabled: \(timers)")
        default:
            break
        }
    }
}

/// One page's ```` ```sh ```` blocks run in order from a `DocsHome` of their own, with the stand-ins
/// `DocsCommandsTests` describes.
struct PageRun {
    let page: DocsPage
    let docs: DocsHome
    /// Where the page's commands run: the source checkout's stand-in.
    let work: String
    /// What `/etc/` and `/var/lib/` become.
    let root: String
    /// Logs, pid files and the exported variables.
    let scratch: String
    let emulatorPort: Int
    let servePort: Int

    init(_ page: DocsPage, topic: String) throws {
        self.page = page
        docs = try DocsHome(topic: topic)
        work = docs.directory.file("work")
        root = docs.directory.file("root")
        scratch = docs.directory.file("scratch")
        for directory in [work, scratch, root + "/etc/systemd/system", root + "/var/lib"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(
            atPath: work + "/examples", withDestinationPath: RepositoryFiles.path("examples"))
        try "".write(toFile: scratch + "/exported.sh", atomically: true, encoding: .utf8)
        emulatorPort = try LoopbackPort.unused()
        servePort = try LoopbackPort.unused()
    }

    /// A block's text with the stand-ins' paths and ports in place of the real ones.
    func rewritten(_ lines: [String]) -> String {
        var text = lines.joined(separator: "\n")
        // An absolute path: at the start of a line or after a character no path has in it.
        text = text.replacing(/(^|[^\w.~\/-])\/(etc|var\/lib)\//.anchorsMatchLineEndings()) {
            "\($0.1)\(root)/\($0.2)/"
        }
        text = text.replacing(/(127\.0\.0\.1|0\.0\.0\.0|localhost):8100\b/) { "\($0.1):\(servePort)" }
        return text
    }

    /// Runs every ```` ```sh ```` block in order, each expected to exit 0; returns each block's result.
    func runShellBlocks() throws -> [(block: DocsPage.Block, result: ToolResult)] {
        let exported = scratch + "/exported.sh"
        var outputs: [(block: DocsPage.Block, result: ToolResult)] = []
        for block in try page.blocks() where block.language == "sh" {
            if block.lines.contains(where: { $0.contains("push.log") }) { waitForBackgroundSends() }
            let script = [
                "set -euo pipefail", "source \(exported)", Self.standIns, "cd \(work)", rewritten(block.lines),
                "export -p > \(exported)",
            ].joined(separator: "\n")
            let result = try docs.bash(
                script,
                extra: [
                    "DOCS_ROOT": root, "DOCS_SCRATCH": scratch, "DOCS_EMULATOR_PORT": "\(emulatorPort)",
                    "DOCS_SERVE_PORT": "\(servePort)",
                ],
                directory: work)
            #expect(
                result.status == 0,
                "\(page.path):\(block.firstLine) failed (exit \(result.status)):\n\(result.stdout)\n\(result.stderr)")
            #expect(!result.stderr.contains("unexpected error"), "\(page.path):\(block.firstLine): \(result.stderr)")
            outputs.append((block, result))
        }
        return outputs
    }

    /// Waits until no `send-push` of this page (its `HOME`) is running: the background sends of
    /// `--hook` and `--detach` write `push.log` when they finish. No send outlives its `--timeout`
    /// (30 s by default), so the wait is bounded by that and a margin for a loaded machine, not by a
    /// guess at how fast a send is: 20 s was once too short beside another test run.
    func waitForBackgroundSends() {
        // send-push is a link: a running one's /proc/PID/exe is the pushkit-free program it names.
        let tool = URL(fileURLWithPath: BuiltTool.path("send-push")).resolvingSymlinksInPath().path
        let home = Data("HOME=\(docs.home)".utf8)
        let deadline = Date().addingTimeInterval(Self.backgroundSendWait)
        while Date() < deadline {
            let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            let running = processes.contains { entry in
                guard Int32(entry) != nil,
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/exe")) == tool,
                    let environment = FileManager.default.contents(atPath: "/proc/\(entry)/environ")
                else { return false }
                return environment.split(separator: 0).contains { Data($0) == home }
            }
            if !running { return }
            usleep(20_000)
        }
    }

    /// The longest wait for a page's background sends: send-push's default `--timeout` and a margin.
    static let backgroundSendWait: TimeInterval = 30 + 60

    /// What the services the page started wrote (their standard output and error).
    func serviceLogs() -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: scratch)) ?? []
        return names.filter { $0.hasSuffix(".service.log") }.sorted()
            .compactMap { try? String(contentsOfFile: scratch + "/" + $0, encoding: .utf8) }.joined()
    }

    /// Stops what the page started and left running (emulators, services): SIGTERM, then SIGKILL after
    /// five seconds. Only processes still running one of the built tools are signalled.
    func stopStarted() {
        let listed = (try? String(contentsOfFile: scratch + "/pids", encoding: .utf8)) ?? ""
        // Only the built tools (a listed pid may have been reused): `/proc/PID/exe` names the
        // program with its links resolved (`.build/debug` is a link), "(deleted)" after a rebuild.
        let directories = [
            BuiltTool.binDirectory, URL(fileURLWithPath: BuiltTool.binDirectory).resolvingSymlinksInPath().path,
        ]
        let pids = listed.split(separator: "\n").compactMap { pid_t($0) }.filter { pid in
            let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
            return directories.contains { executable?.hasPrefix($0 + "/") == true }
        }
        for pid in pids { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(5)
        while pids.contains(where: { kill($0, 0) == 0 && !Self.isZombie($0) }), Date() < deadline { usleep(20_000) }
        for pid in pids where kill(pid, 0) == 0 && !Self.isZombie(pid) { kill(pid, SIGKILL) }
    }

    static func isZombie(_ pid: pid_t) -> Bool {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return status.contains("State:\tZ")
    }

    /// The stand-ins, defined in every block's shell (see `DocsCommandsTests`).
    static let standIns = #"""
        # In a process started in the background: close what bash inherited beyond the standard
        # streams (the test's process watches one descriptor until every holder has exited).
        docs_close_inherited() {
          local fd
          for fd in $(ls "/proc/$BASHPID/fd"); do
            if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi
          done
        }
        # apns-emulator on the page's port rather than 2197; one started in the background is listed
        # so that it is stopped at the end.
        apns-emulator() {
          local arguments=() previous="" port=""
          for argument in "$@"; do
            if [ "$previous" = --port ]; then
              if [ "$argument" = 2197 ]; then argument=$DOCS_EMULATOR_PORT; fi
              port=$argument
            fi
            arguments+=("$argument"); previous=$argument
          done
          if [ -z "$port" ]; then arguments=(--port "$DOCS_EMULATOR_PORT" "${arguments[@]}"); fi
          if [ "$BASH_SUBSHELL" -gt 0 ]; then
            echo "$BASHPID" >> "$DOCS_SCRATCH/pids"
            docs_close_inherited
            exec apns-emulator "${arguments[@]}"
          fi
          command apns-emulator "${arguments[@]}"
        }
        # register-apns serve in the background; the block goes on once it listens.
        register-apns() {
          if [ "${1-}" != serve ]; then command register-apns "$@"; return; fi
          local log="$DOCS_SCRATCH/serve.$RANDOM.log" pid
          (
            docs_close_inherited
            exec register-apns "$@"
          ) > /dev/null 2> "$log" < /dev/null &
          pid=$!
          echo "$pid" >> "$DOCS_SCRATCH/pids"
          for _ in $(seq 1500); do
            if grep -q 'listening on' "$log"; then return 0; fi
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.02
          done
          echo "register-apns serve did not start:" >&2; cat "$log" >&2; return 1
        }
        # Root: the command as this user, with /etc/ and /var/lib/ already moved under $DOCS_ROOT.
        sudo() {
          while [ $# -gt 0 ]; do
            case $1 in -u | -g) shift 2 ;; --) shift; break ;; -*) shift ;; *) break ;; esac
          done
          "$@"
        }
        useradd() { echo "useradd $*" >> "$DOCS_SCRATCH/accounts"; }
        userdel() { echo "userdel $*" >> "$DOCS_SCRATCH/accounts"; }
        chown() { echo "chown $*" >> "$DOCS_SCRATCH/accounts"; }
        install() {
          local arguments=()
          while [ $# -gt 0 ]; do
            case $1 in -o | -g) shift 2 ;; *) arguments+=("$1"); shift ;; esac
          done
          command install "${arguments[@]}"
        }
        # systemd: system units in $DOCS_ROOT/etc/systemd/system, user units in ~/.config/systemd/user.
        systemctl() {
          local scope=system
          if [ "${1-}" = --user ]; then scope=user; shift; fi
          local verb=${1-} now="" action unit
          shift || true
          if [ "${1-}" = --now ]; then now=1; shift; fi
          case $verb in
            daemon-reload) return 0 ;;
            enable) action=${now:+start} ;;
            disable) action=${now:+stop} ;;
            start | stop | restart) action=$verb ;;
            *) echo "systemctl (stand-in): '$verb' is not stood in for" >&2; return 1 ;;
          esac
          for unit in "$@"; do docs_unit "$scope" "${action:-check}" "$unit" || return; done
        }
        docs_unit() {
          local scope=$1 action=$2 unit=$3 directory="$DOCS_ROOT/etc/systemd/system"
          if [ "$scope" = user ]; then directory="$HOME/.config/systemd/user"; fi
          case $unit in *.*) ;; *) unit=$unit.service ;; esac
          if [ "$action" != stop ] && [ ! -f "$directory/$unit" ]; then
            echo "Failed to $action $unit: Unit $unit not found." >&2; return 5
          fi
          case $unit in
            *.timer) if [ "$action" = start ] || [ "$action" = restart ]; then echo "$unit" >> "$DOCS_SCRATCH/timers"; fi ;;
            *.service) if [ "$action" != check ]; then docs_service "$action" "$scope" "$directory" "${unit%.service}"; fi ;;
          esac
        }
        crontab() {
          case ${1-} in
            -l) if [ -f "$DOCS_SCRATCH/crontab" ]; then cat "$DOCS_SCRATCH/crontab"; else echo "no crontab for $USER" >&2; return 1; fi ;;
            -) cat > "$DOCS_SCRATCH/crontab" ;;
            -e | "") echo "crontab (stand-in): an editor is not stood in for" >&2; return 1 ;;
            *) cat "$1" > "$DOCS_SCRATCH/crontab" ;;
          esac
        }
        loginctl() { echo "loginctl $*" >> "$DOCS_SCRATCH/accounts"; }
        journalctl() {
          local unit=""
          while [ $# -gt 0 ]; do
            case $1 in -u) unit=${2%.service}; shift 2 ;; *) shift ;; esac
          done
          cat "$DOCS_SCRATCH/$unit.service.log"
        }
        docs_service() {
          local verb=$1 scope=$2 name=$4
          local unit="$3/$name.service" pidfile="$DOCS_SCRATCH/$name.service.pid"
          if [ "$verb" != start ] && [ -s "$pidfile" ]; then
            local pid waited=0
            pid=$(cat "$pidfile")
            kill "$pid" 2>/dev/null || true
            while [ -d "/proc/$pid" ] && ! grep -q '^State:.Z' "/proc/$pid/status" 2>/dev/null; do
              sleep 0.05; waited=$((waited + 1))
              if [ $waited -gt 400 ]; then echo "$name.service did not stop" >&2; return 1; fi
            done
            rm -f "$pidfile"
          fi
          if [ "$verb" = stop ]; then return 0; fi
          if [ ! -f "$unit" ]; then echo "Failed to start $name.service: Unit $name.service not found." >&2; return 5; fi
          local configuration="$DOCS_ROOT/etc" state_root="$DOCS_ROOT/var/lib"
          if [ "$scope" = user ]; then configuration="$HOME/.config" state_root="$HOME/.local/state"; fi
          local expand="s|%E|$configuration|g; s|%S|$state_root|g; s|%h|$HOME|g; s|/usr/local/bin/||g"
          expand+="; s|127\.0\.0\.1:8100|127.0.0.1:$DOCS_SERVE_PORT|g"
          local state settings=() line command diagnostics=() variable
          state=$(sed -n 's/^StateDirectory=//p' "$unit")
          if [ -n "$state" ]; then command install -d -m 700 "$state_root/$state"; fi
          local service_home="$state_root/$state"
          if [ "$scope" = user ]; then service_home=$HOME; fi
          while IFS= read -r line; do settings+=("$line"); done < <(sed -n 's/^Environment=//p' "$unit" | sed "$expand")
          command=$(sed -n 's/^ExecStart=//p' "$unit" | sed "$expand")
          for variable in $(compgen -e); do
            case $variable in *SAN_OPTIONS | SWIFT_BACKTRACE) diagnostics+=("$variable=${!variable}") ;; esac
          done
          # As systemd splits ExecStart= into words (the example units quote nothing).
          # shellcheck disable=SC2086
          (
            docs_close_inherited
            exec env -i PATH="$PATH" HOME="$service_home" LANG=C.UTF-8 \
              APNS_PRODUCTION_URL="$APNS_PRODUCTION_URL" APNS_SANDBOX_URL="$APNS_SANDBOX_URL" \
              APNS_CA_FILE="$APNS_CA_FILE" "${diagnostics[@]}" "${settings[@]}" $command
          ) >> "$DOCS_SCRATCH/$name.service.log" 2>&1 < /dev/null &
          echo $! > "$pidfile"
          echo $! >> "$DOCS_SCRATCH/pids"
        }
        """#
}
