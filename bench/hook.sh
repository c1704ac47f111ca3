#!/usr/bin/env bash
# The foreground of `send-push --hook` and `--detach`: how long the caller (a reply hook, an agent's
# tool) waits, beside a whole `send-push` and `true` in the same run (release build).
#
# Measured the way the reply hook really calls it: from Python, with
# `subprocess.run([...], input=reply, capture_output=True, timeout=10)`, timing the call. The reply
# goes to every registered device (two here) on the emulator on loopback. Commands are interleaved
# round by round; after each call the harness sleeps 0.1 s (not timed) so the background deliveries
# of earlier calls do not compete for the two cores. At the end every background delivery must be
# in push.log as delivered. A second view: hyperfine -N of the argument form
# (`--hook MSG PREVIEW`, no stdin), which leaves Python's own spawning cost out.
# Usage: bench/hook.sh BIN_DIR
set -euo pipefail
BIN=${1:?usage: bench/hook.sh BIN_DIR}
RUNS=${RUNS:-60}
source "$(dirname "$0")/lib.sh"

start_emulator --quiet --record /dev/null
export APNS_PRODUCTION_URL="https://127.0.0.1:$port" APNS_CA_FILE="$ca" PUSHKIT_STATE_DIR="$work/state"
"$BIN/register-apns" phone "$(printf 'a1%.0s' $(seq 32))" >/dev/null
"$BIN/register-apns" ipad "$(printf 'b2%.0s' $(seq 32))" >/dev/null
"$BIN/apns-jwt" >/dev/null   # warm the token cache
reply="The build finished: 312 tests passed, 0 failed. The release notes are in the usual place, and the deploy can go ahead whenever you are ready."

echo "1. from Python, subprocess.run(..., input=reply, capture_output=True): median (p90) of $RUNS calls"
python3 - "$BIN" "$RUNS" "$reply" <<'PY'
import json, os, statistics, subprocess, sys, time
bin_dir, runs, reply = sys.argv[1], int(sys.argv[2]), sys.argv[3]
commands = [
    ("true", ["true"], None),
    ("send-push --hook MSG (reply on stdin)", [f"{bin_dir}/send-push", "--hook", "msg-1"], reply),
    ("send-push --detach --body - (stdin)", [f"{bin_dir}/send-push", "--detach", "--title", "Sven", "--body", "-"], reply),
    ("send-push MSG PREVIEW (whole delivery)", [f"{bin_dir}/send-push", "msg-1", reply], None),
]
times = {name: [] for name, _, _ in commands}
for round in range(runs + 3):
    for name, args, stdin in commands:
        started = time.perf_counter()
        done = subprocess.run(args, input=stdin.encode() if stdin else None, capture_output=True, timeout=10)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(f"{name}: exit {done.returncode}: {done.stderr.decode()}")
        if round >= 3:  # three warm-up rounds
            times[name].append(elapsed * 1000)
        time.sleep(0.1)
whole = statistics.median(times["send-push MSG PREVIEW (whole delivery)"])
for name, values in times.items():
    median = statistics.median(values)
    p90 = statistics.quantiles(values, n=10)[-1]
    print(f"   {name:<40} median {median:6.2f} ms  (p90 {p90:6.2f})  {median / whole:4.2f} of a whole send")
hook = statistics.median(times["send-push --hook MSG (reply on stdin)"])
rows_path = os.environ.get("BENCH_ROWS")
if rows_path:
    true_ms = statistics.median(times["true"])
    with open(rows_path, "a") as rows:
        for name, goal in (("send-push --detach --body - (stdin)", 10.0), ("send-push --hook MSG (reply on stdin)", 15.0)):
            rows.write(json.dumps({"group": "hooks", "what": name + ", foreground, from Python",
                                   "value": float(f"{statistics.median(times[name]):.2f}"), "unit": "ms",
                                   "reference": "`true` from Python", "reference_value": float(f"{true_ms:.2f}"),
                                   "max_value": goal}) + "\n")
print(f"   --hook foreground: {hook:.2f} ms, {hook - statistics.median(times['true']):.2f} ms more than spawning `true`; target < 15 ms: {'met' if hook < 15 else 'MISSED'}")
PY

echo "2. hyperfine -N (no shell, no Python), 40 runs: the argument form"
hyperfine -N --warmup 3 --runs 40 --prepare 'sleep 0.1' --export-json "$work/hook.json" \
  -n "true" "true" \
  -n "send-push --hook MSG PREVIEW" "$BIN/send-push --hook msg-2 '$reply'" \
  -n "send-push --dry-run" "$BIN/send-push --dry-run --body hi" \
  -n "send-push MSG PREVIEW (whole delivery)" "$BIN/send-push msg-2 '$reply'" >/dev/null 2>&1
python3 - "$work/hook.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"   {r['command']:<40} median {r['median']*1000:6.2f} ms")
PY

# Every background delivery of the hook and detach calls must have reached the emulator.
expected=$(( 2 * (2 * (RUNS + 3) + 43) ))
for _ in $(seq 300); do
  delivered=$(grep -c '"outcome":"delivered"' "$work/state/push.log" || true)
  [ "$delivered" -ge "$expected" ] && break
  sleep 0.05
done
other=$(grep -vc '"outcome":"delivered"' "$work/state/push.log" || true)
echo "   push.log: $delivered of $expected background deliveries delivered, $other other records"
