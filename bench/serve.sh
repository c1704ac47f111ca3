#!/usr/bin/env bash
# register-apns serve on loopback (release build):
#  a. registration throughput: wrk -t2 -c64 against POST /register-apns, 1,000 distinct devices
#     cycling (bench/serve-register.lua), rate limit off, fresh state file; requests/s, latency
#     percentiles, non-2xx answers, the write batch sizes from GET /metrics, then every one of the
#     1,000 devices checked in `register-apns list --json` (the script fails if one is missing or wrong);
#  b. send latency: POST /api/v1/notifications/send to one registered device against apns-emulator,
#     one request at a time (wrk -t1 -c1, bench/serve-send.lua), plus a check that the server kept
#     one HTTP/2 connection to APNs open between the requests;
#  c. start-up of `register-apns add` (hyperfine -N), which must not get slower because serve
#     exists; beside BEFORE_BIN (a register-apns built before the server) when that is set.
# Usage: bench/serve.sh BIN_DIR
#        DURATION=30s (registration run), SEND_DURATION=10s (send run), BEFORE_BIN=/path/to/old/register-apns,
#        PREFILL=N: the registration run starts from a state file holding N other devices (default 0),
#        ONLY_REGISTRATION=1: part a only
set -euo pipefail
BIN=${1:?usage: bench/serve.sh BIN_DIR}
DURATION=${DURATION:-30s}
SEND_DURATION=${SEND_DURATION:-10s}
BEFORE_BIN=${BEFORE_BIN:-}
PREFILL=${PREFILL:-0}
here=$(cd "$(dirname "$0")" && pwd)
for tool in register-apns register-apns-serve apns-emulator; do
  [ -x "$BIN/$tool" ] || { echo "no $BIN/$tool (build with: make build)" >&2; exit 66; }
done
for command in wrk hyperfine curl python3 ss; do
  command -v "$command" >/dev/null || { echo "$command is required (make bench-deps)" >&2; exit 69; }
done
source "$here/lib.sh"

server_pid=""
stop_server() {
  [ -n "$server_pid" ] || return 0
  kill -TERM "$server_pid" 2>/dev/null || true
  local status=0
  wait "$server_pid" || status=$?
  server_pid=""
  [ "$status" = 0 ] || { echo "register-apns serve exited $status after SIGTERM" >&2; return 1; }
}
trap 'stop_server || true; cleanup' EXIT

# Starts `register-apns serve` with the given extra arguments, its standard error (the access log)
# in $1; waits for the listening line and sets $server_port.
start_server() {
  local log=$1
  shift
  "$BIN/register-apns" serve --listen 127.0.0.1:0 --no-auth --rate-limit 0 "$@" 2> "$log" &
  server_pid=$!
  for _ in $(seq 500); do
    server_port=$(sed -n '1,5s/^register-apns serve: listening on http:\/\/127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log")
    [ -n "$server_port" ] && return 0
    kill -0 "$server_pid" 2>/dev/null || { cat "$log" >&2; return 1; }
    sleep 0.02
  done
  echo "register-apns serve did not start" >&2
  return 1
}

# user + system CPU seconds of a running process
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }

echo "a. registration throughput: wrk -t2 -c64 -d$DURATION, POST /register-apns, 1,000 devices cycling"
mkdir -p "$work/register"
state="$work/register/devices.json"
if [ "$PREFILL" -gt 0 ]; then
  # The registry's size is part of what is measured (every batch once rewrote the whole file).
  python3 "$here/prefill.py" "$state" "$PREFILL"
  echo "   state file prefilled with $PREFILL other devices ($(du -h "$state" | cut -f1))"
fi
start_server "$work/register/serve.err" --state-file "$state"
url="http://127.0.0.1:$server_port"
wrk -t2 -c64 -d"$DURATION" --latency -s "$here/serve-register.lua" "$url/register-apns" > "$work/register/wrk.out"
server_cpu=$(cpu_seconds "$server_pid")
curl -sf "$url/metrics" > "$work/register/metrics.txt"
journal_bytes=$(stat -c %s "$state.journal" 2>/dev/null || echo 0)
stop_server
# A large file's batches go to the journal beside it, folded into the file when serve is idle and
# when it stops: after SIGTERM the file alone must hold every registration.
echo "   journal beside the file at the end of the run: $journal_bytes bytes; after SIGTERM: $([ -e "$state.journal" ] && echo present || echo folded into the file)"
[ ! -e "$state.journal" ] || { echo "the journal was not folded into the state file when serve stopped" >&2; exit 1; }
python3 - "$state" "$PREFILL" <<'PY'
import json, sys
devices = json.load(open(sys.argv[1]))["devices"]
wrong = [i for i in range(1000) if devices.get(f"bench-{i}", {}).get("token") != f"{i:08x}" * 8]
expected = int(sys.argv[2]) + 1000
print(f"   the state file itself (json.load): {len(devices):,} devices; {1000 - len(wrong)} of the 1,000 benchmarked with the right token")
if wrong or len(devices) != expected:
    print(f"   expected {expected:,} devices; missing or wrong: {wrong[:20]}", file=sys.stderr)
    sys.exit(1)
PY
summary=$(grep '^serve-register:' "$work/register/wrk.out")
non2xx=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\)/\1/p' "$work/register/wrk.out")
sed -n '/Thread Stats/,/Latency Distribution/p;/Latency Distribution/,/requests in/p;/Requests\/sec/p' "$work/register/wrk.out" \
  | grep -v 'Latency Distribution' | sed 's/^/   wrk| /'
python3 - "$summary" "${non2xx:-0}" "$server_cpu" "$work/register/metrics.txt" "$PREFILL" "${BENCH_ROWS:-/dev/null}" <<'PY'
import json, re, sys
summary, non2xx, cpu, metrics = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
prefill, rows_path = int(sys.argv[5]), sys.argv[6]
f = dict(kv.split("=") for kv in summary.split()[1:])
requests, seconds = int(f["requests"]), float(f["seconds"])
rate, p99 = requests / seconds, int(f["p99_us"]) / 1000
print(f"   {requests} requests in {seconds:.1f} s: {rate:,.0f} registrations/s; latency p50 {int(f['p50_us'])/1000:.2f} ms,"
      f" p90 {int(f['p90_us'])/1000:.2f} ms, p99 {p99:.2f} ms, max {int(f['max_us'])/1000:.1f} ms")
print(f"   non-2xx answers (wrk): {non2xx}; non-200 (script): {f['non200']}; socket errors: {f['errors']}")
print(f"   server CPU (user+system): {cpu:.1f} s = {cpu / seconds * 100:.0f} % of one core, {cpu / requests * 1e6:.0f} us per registration")
text = open(metrics).read()
def value(name):
    m = re.search(r"^" + re.escape(name) + r"(?:\{[^}]*\})? ([0-9.e+]+)$", text, re.M)
    return float(m.group(1)) if m else None
total, count = value("pushkit_registry_write_batch_size_sum"), value("pushkit_registry_write_batch_size_count")
if count:
    print(f"   registry writes: {count:,.0f} for {total:,.0f} registrations, mean batch {total / count:.1f}")
    buckets = re.findall(r'^pushkit_registry_write_batch_size_bucket\{le="([^"]+)"\} ([0-9.e+]+)$', text, re.M)
    previous, parts = 0.0, []
    for le, cumulative in buckets:
        n = float(cumulative) - previous
        previous = float(cumulative)
        parts.append(f"<={le}: {n:,.0f}")
    print("   batch sizes (writes per bucket): " + ", ".join(parts))
else:
    print("   /metrics has no pushkit_registry_write_batch_size")
# The server's own view of the latency (request read to response handed to NIO), to tell queueing
# in the server from scheduling on a busy machine.
route = r'route="/register-apns"'
served = {float(le): float(n) for le, n in re.findall(r'^pushkit_http_request_duration_seconds_bucket\{' + route + r',le="([0-9.]+)"\} ([0-9.e+]+)$', text, re.M)}
count, total = value(f'pushkit_http_request_duration_seconds_count{{{route}}}'), value(f'pushkit_http_request_duration_seconds_sum{{{route}}}')
if count and served:
    over = lambda limit: (count - served[limit]) / count * 100
    print(f"   server-side (/metrics): mean {total / count * 1000:.1f} ms; over 25 ms {over(0.025):.2f} %, over 50 ms {over(0.05):.2f} %, over 100 ms {over(0.1):.2f} %")
ok = rate >= 2000 and p99 < 50 and non2xx == 0 and int(f["non200"]) == 0
print(f"   target (issues 10, 20): >= 2,000 registrations/s with p99 < 50 ms: {'met' if ok else 'NOT met'}")
where = f"serve, file with {prefill:,} other devices" if prefill else "serve, fresh file"
with open(rows_path, "a") as rows:
    rows.write(json.dumps({"group": "registry", "what": f"{where}: registrations (wrk -c64)", "value": round(rate),
                           "unit": "registrations/s", "min_value": 2000}) + "\n")
    rows.write(json.dumps({"group": "registry", "what": f"{where}: registration p99", "value": round(p99, 1),
                           "unit": "ms", "max_value": 50}) + "\n")
PY
"$BIN/register-apns" list --json --state-file "$state" > "$work/register/list.jsonl"
python3 - "$work/register/list.jsonl" <<'PY'
import json, sys
listed = {d["device_id"]: d["token"] for d in map(json.loads, open(sys.argv[1]))}
wrong = [i for i in range(1000) if listed.get(f"bench-{i}") != f"{i:08x}" * 8]
print(f"   register-apns list --json: {len(listed)} devices; {1000 - len(wrong)} of the 1,000 benchmarked present with the right token")
if wrong:
    print(f"   missing or wrong: {', '.join(f'bench-{i}' for i in wrong[:20])}{' ...' if len(wrong) > 20 else ''}", file=sys.stderr)
    sys.exit(1)
PY
echo "   access log: $(grep -c ' POST /register-apns ' "$work/register/serve.err") lines, $(du -h "$work/register/serve.err" | cut -f1)"

[ "${ONLY_REGISTRATION:-0}" = 1 ] && exit 0

echo
echo "b. send latency: POST /api/v1/notifications/send to one device, one request at a time, against apns-emulator"
mkdir -p "$work/send"
start_emulator --record "$work/send/records.jsonl"
start_server "$work/send/serve.err" --state-file "$work/send/devices.json" \
  --key-path "$APNS_KEY_PATH" --key-id "$APNS_KEY_ID" --team-id "$APNS_TEAM_ID" --topic "$APNS_TOPIC" \
  --production --apns-url "https://127.0.0.1:$port" --cacert "$ca"
url="http://127.0.0.1:$server_port"
device=$(printf 'b2%.0s' $(seq 32))
curl -sf -H 'Content-Type: application/json' -d "{\"device_token\": \"bench-send\", \"apns_token\": \"$device\"}" \
  "$url/register-apns" >/dev/null
send() { curl -sf -o "$work/send/answer.json" -w '%{time_total}' -H 'Content-Type: application/json' \
  -d '{"title":"bench","body":"hello"}' "$url/api/v1/notifications/send"; }
first=$(send)
grep -q '"sent": *1' "$work/send/answer.json" || { echo "the first send did not deliver:" >&2; cat "$work/send/answer.json" >&2; exit 1; }
for _ in 1 2 3 4 5; do send >/dev/null; done   # warm-up
wrk -t1 -c1 -d"$SEND_DURATION" --latency -s "$here/serve-send.lua" "$url/api/v1/notifications/send" > "$work/send/wrk.out"
summary=$(grep '^serve-send:' "$work/send/wrk.out")
connections=$(ss -Htn state established "( dport = :$port )" | wc -l)
stop_server
stop_emulator
python3 - "$summary" "$first" "$work/send/records.jsonl" "$connections" <<'PY'
import json, sys
summary, first, records, established = sys.argv[1], float(sys.argv[2]), sys.argv[3], int(sys.argv[4])
f = dict(kv.split("=") for kv in summary.split()[1:])
requests, seconds = int(f["requests"]), float(f["seconds"])
print(f"   first send (curl, new APNs connection and provider token): {first * 1000:.2f} ms")
print(f"   wrk -t1 -c1: {requests} sends in {seconds:.1f} s ({requests / seconds:,.0f}/s); median {int(f['p50_us'])/1000:.2f} ms,"
      f" p90 {int(f['p90_us'])/1000:.2f} ms, p99 {int(f['p99_us'])/1000:.2f} ms, max {int(f['max_us'])/1000:.1f} ms")
print(f"   answers not 200 with sent 1: {f['bad']}; socket errors: {f['errors']}")
rows = [json.loads(line) for line in open(records) if line.strip()]
connections = sorted({r["connection"] for r in rows})
print(f"   apns-emulator: {len(rows)} pushes recorded over {len(connections)} connection(s) {connections};"
      f" established to it after the run (ss): {established}")
if f["bad"] != "0" or f["errors"] != "0":
    sys.exit(1)
PY

echo
echo "c. start-up: register-apns add and list (hyperfine -N, 5 warm-ups, 60 runs each; with BEFORE_BIN also interleaved pairs)"
mkdir -p "$work/startup/current" "$work/startup/before"
token=$(printf '%064x' 48879)
# Both binaries are timed as fresh copies in one directory: where a binary lay moved its start-up
# by up to 0.6 ms on this machine (the same file in .build/ or in /tmp), more than what is sought.
cp "$BIN/register-apns" "$work/startup/current/register-apns"
builds=(current)
if [ -n "$BEFORE_BIN" ]; then cp "$BEFORE_BIN" "$work/startup/before/register-apns"; builds+=(before); fi
# `add` writes and fsyncs the file and its directory, so the disk's noise is in its times; `list`
# of the same one-device file is the start-up and a read alone.
for subcommand in add list; do
  commands=()
  for build in "${builds[@]}"; do
    if [ "$subcommand" = add ]; then arguments="add dev-1 $token"; else arguments="list"; fi
    commands+=(-n "register-apns $subcommand ($build)" "$work/startup/$build/register-apns $arguments --state-file $work/startup/$build/devices.json")
  done
  hyperfine -N --warmup 5 --runs 60 --export-json "$work/startup/$subcommand.json" "${commands[@]}" >/dev/null 2>&1
  python3 - "$work/startup/$subcommand.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"   {r['command']:<32} median {r['median'] * 1000:6.2f} ms  (hyperfine; mean {r['mean'] * 1000:.2f} ± {r['stddev'] * 1000:.2f})")
PY
done
if [ -n "$BEFORE_BIN" ]; then
  # Blocks of 60 runs one build after the other drift with the machine by more than the
  # difference sought (ratios of 0.99 to 1.18 for the same two binaries in one session), so the
  # ratio comes from runs interleaved one by one (ABBA), 300 pairs.
  python3 - "$work/startup" "$token" <<'PY'
import os, statistics, sys, time
startup, token = sys.argv[1], sys.argv[2]
devnull = os.open(os.devnull, os.O_WRONLY)
def run(argv):
    started = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status = os.waitpid(pid, 0)
    if status: sys.exit(f"{' '.join(argv)} failed")
    return (time.perf_counter_ns() - started) / 1e6
for subcommand in ("add", "list"):
    argv = {build: [f"{startup}/{build}/register-apns"] + (["add", "dev-1", token] if subcommand == "add" else ["list"])
            + ["--state-file", f"{startup}/{build}/devices.json"] for build in ("current", "before")}
    for _ in range(10): run(argv["current"]); run(argv["before"])
    times = {"current": [], "before": []}
    for i in range(300):
        for build in (("current", "before") if i % 2 else ("before", "current")):
            times[build].append(run(argv[build]))
    current, before = statistics.median(times["current"]), statistics.median(times["before"])
    difference = statistics.median(a - b for a, b in zip(times["current"], times["before"]))
    print(f"   {subcommand}, 300 interleaved pairs: current {current:.2f} ms, before {before:.2f} ms,"
          f" current / before {current / before:.3f}, median paired difference {difference:+.2f} ms")
PY
fi
echo "   binaries: size, shared libraries (ldd), symbols of the server's modules (nm: mangled Swift names carry the module)"
show_binary() {
  local server_symbols
  server_symbols=$(nm "$2" 2>/dev/null | grep -cE 'Hummingbird|NIOCore|NIOPosix|NIOHTTP1' || true)
  printf '   %-30s %6.1f MB, %s shared libraries (%s), %s NIO/Hummingbird symbols\n' "$1" \
    "$(python3 -c "print($(stat -L -c %s "$2") / 1e6)")" "$(ldd "$2" | wc -l)" \
    "$(ldd "$2" | awk '{print $1}' | sed 's/\.so.*//' | paste -sd ' ')" "$server_symbols"
}
show_binary "register-apns" "$BIN/register-apns"
[ -z "$BEFORE_BIN" ] || show_binary "register-apns (before serve)" "$BEFORE_BIN"
show_binary "register-apns-serve" "$BIN/register-apns-serve"
