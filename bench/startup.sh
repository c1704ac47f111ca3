#!/usr/bin/env bash
# Start-up and warm paths of the three light tools next to two references measured in the same run
# (issue 19): `true` and an empty Swift program linked the way the tools are (-O, static Swift
# runtime), compiled here from bench/empty.swift.
#  1. wall time: every command run in turn, round after round (interleaved, so drift between
#     seconds hits every row alike), medians and the ratio to the empty program;
#  2. instructions executed in user space (valgrind --tool=callgrind, once each, on copies without
#     debug information): repeatable where wall time is not, but blind to the kernel's part
#     (exec, page faults), which the wall time includes.
# Rows: `apns-jwt --help`, `register-apns --help`, `send-push --help`; warm paths `apns-jwt` (cached
# token), `register-apns list` (2 devices), `send-push --dry-run` (2 devices). Goal: each warm path
# at most 2x the empty program. For reference, without a goal: `--version` of the three tools that
# serve (`apns-emulator`, `register-apns-serve`, `pushkit-mcp`, the one program pushkit-free-server),
# which start once and then run.
#  3. cold start: the three light tools one after another (apns-jwt, register-apns list, send-push
#     --dry-run), the way a reply hook runs them, right after the kernel's page cache was dropped
#     (root only: /proc/sys/vm/drop_caches), so their program files are read from disk. One program
#     behind the three names is read once (docs/internals.md, "One program, several names").
# Usage: bench/startup.sh BIN_DIR       ROUNDS=300 (timed rounds), CALLGRIND=0 skips part 2,
#        COLD_RUNS=15 (part 3; 0 skips it)
set -euo pipefail
BIN=${1:?usage: bench/startup.sh BIN_DIR}
ROUNDS=${ROUNDS:-300}
CALLGRIND=${CALLGRIND:-1}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

swiftc -O -static-stdlib "$here/empty.swift" -o "$work/empty-swift" 2> "$work/swiftc.err" \
  || { cat "$work/swiftc.err" >&2; exit 1; }
export PUSHKIT_STATE_DIR="$work/state" APNS_PRODUCTION_URL="https://127.0.0.1:9"
"$BIN/register-apns" phone "$(printf 'a1%.0s' $(seq 32))" >/dev/null
"$BIN/register-apns" ipad "$(printf 'b2%.0s' $(seq 32))" >/dev/null
"$BIN/apns-jwt" >/dev/null   # the token cache is warm from here on

commands=(
  "true|$(type -P true)"
  "empty Swift program|$work/empty-swift"
  "apns-jwt --help|$BIN/apns-jwt --help"
  "register-apns --help|$BIN/register-apns --help"
  "send-push --help|$BIN/send-push --help"
  "apns-jwt (cached token)|$BIN/apns-jwt"
  "register-apns list (2 devices)|$BIN/register-apns list"
  "send-push --dry-run (2 devices)|$BIN/send-push --dry-run --body hi"
  "apns-emulator --version|$BIN/apns-emulator --version"
  "register-apns-serve --version|$BIN/register-apns-serve --version"
  "pushkit-mcp --version|$BIN/pushkit-mcp --version"
)
: > "$work/commands"
for entry in "${commands[@]}"; do
  name=${entry%%|*}
  read -r -a argv <<<"${entry#*|}"
  (IFS=$'\t'; printf '%s\t%s\n' "$name" "${argv[*]}") >> "$work/commands"
done

echo "1. wall time, $ROUNDS interleaved rounds (each command once per round, output to /dev/null)"
python3 "$here/interleave.py" "$ROUNDS" "$work/startup.json" "$work/commands"
python3 - "$work/startup.json" "${BENCH_ROWS:-/dev/null}" <<'PY'
import json, statistics, sys
times = json.load(open(sys.argv[1]))
medians = {name: statistics.median(values) for name, values in times.items()}
empty = medians["empty Swift program"]
print("   ratios to the empty Swift program: " + ", ".join(f"{n} {m / empty:.2f}x" for n, m in medians.items()))
with open(sys.argv[2], "a") as rows:
    for name, median in medians.items():
        if name in ("true", "empty Swift program"):
            continue
        warm = not name.endswith("--help") and not name.endswith("--version")
        rows.write(json.dumps({"group": "start-up", "what": name, "value": round(median, 2), "unit": "ms",
                               "reference": "empty Swift program", "reference_value": round(empty, 2),
                               **({"max_ratio": 2.0} if warm else {})}) + "\n")
PY

if [ "$CALLGRIND" = 1 ] && command -v valgrind >/dev/null; then
  echo "2. instructions in user space (callgrind, one run each; the kernel's exec and page faults not counted)"
  empty_ir=""
  for entry in "${commands[@]:1}"; do
    name=${entry%%|*}; line=${entry#*|}; program=${line%% *}; arguments=${line#"$program"}
    # A copy keeps the name it is called by: apns-jwt, register-apns and send-push are links to
    # pushkit-free (the others to pushkit-free-server), which picks the tool by that name.
    real=$(readlink -f "$program"); copy="$work/ir/$(basename "$program")"; mkdir -p "$work/ir"
    [ -e "$work/ir/$(basename "$real")" ] || strip --strip-debug -o "$work/ir/$(basename "$real")" "$real"
    [ -e "$copy" ] || ln -s "$(basename "$real")" "$copy"
    # shellcheck disable=SC2086 # the arguments are words
    ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$copy" $arguments 2>&1 >/dev/null \
      | sed -n 's/.*Collected : \([0-9]*\)$/\1/p')
    [ -n "$empty_ir" ] || empty_ir=$ir
    python3 -c "import sys; n, ir, e = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]); print(f'   {n:<34} {ir / 1e6:6.2f} M instructions   {ir / e:5.2f}x empty')" \
      "$name" "$ir" "$empty_ir"
  done
fi

COLD_RUNS=${COLD_RUNS:-15}
if [ "$COLD_RUNS" -gt 0 ] && [ -w /proc/sys/vm/drop_caches ] && command -v hyperfine >/dev/null; then
  echo "3. cold start: apns-jwt, register-apns list, send-push --dry-run in turn after dropping the page cache ($COLD_RUNS runs)"
  sequence="$BIN/apns-jwt >/dev/null; $BIN/register-apns list >/dev/null; $BIN/send-push --dry-run --body hi >/dev/null"
  hyperfine -N --runs "$COLD_RUNS" --prepare 'sh -c "sync; echo 3 > /proc/sys/vm/drop_caches"' \
    --export-json "$work/cold.json" -n "three tools, cold" "sh -c '$sequence'" >/dev/null 2>&1
  python3 - "$work/cold.json" "${BENCH_ROWS:-/dev/null}" <<'PY'
import json, sys
median = json.load(open(sys.argv[1]))["results"][0]["median"] * 1000
print(f"   apns-jwt; register-apns list; send-push --dry-run, page cache dropped: median {median:.1f} ms")
with open(sys.argv[2], "a") as rows:
    rows.write(json.dumps({"group": "start-up", "what": "three tools in turn, page cache dropped", "value": round(median, 1),
                           "unit": "ms"}) + "\n")
PY
fi
