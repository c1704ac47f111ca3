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
# at most 2x the empty program.
# Usage: bench/startup.sh BIN_DIR       ROUNDS=300 (timed rounds), CALLGRIND=0 skips part 2
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
        warm = not name.endswith("--help")
        rows.write(json.dumps({"group": "start-up", "what": name, "value": round(median, 2), "unit": "ms",
                               "reference": "empty Swift program", "reference_value": round(empty, 2),
                               **({"max_ratio": 2.0} if warm else {})}) + "\n")
PY

if [ "$CALLGRIND" = 1 ] && command -v valgrind >/dev/null; then
  echo "2. instructions in user space (callgrind, one run each; the kernel's exec and page faults not counted)"
  empty_ir=""
  for entry in "${commands[@]:1}"; do
    name=${entry%%|*}; line=${entry#*|}; program=${line%% *}; arguments=${line#"$program"}
    copy="$work/ir-$(basename "$program")"
    [ -e "$copy" ] || strip --strip-debug -o "$copy" "$program"
    # shellcheck disable=SC2086 # the arguments are words
    ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$copy" $arguments 2>&1 >/dev/null \
      | sed -n 's/.*Collected : \([0-9]*\)$/\1/p')
    [ -n "$empty_ir" ] || empty_ir=$ir
    python3 -c "import sys; n, ir, e = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]); print(f'   {n:<34} {ir / 1e6:6.2f} M instructions   {ir / e:5.2f}x empty')" \
      "$name" "$ir" "$empty_ir"
  done
fi
