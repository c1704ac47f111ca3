#!/usr/bin/env bash
# The foreground of `send-push --hook` and `--detach`: how long the caller (a reply hook, an agent's
# tool) waits, beside a whole `send-push` and `true` in the same hyperfine run (release build).
#
# The hook's real call: `send-push --hook MESSAGE_ID` with the reply on standard input, to every
# registered device (two here), against the emulator on loopback. hyperfine runs each command
# through sh and subtracts the shell's own start-up. Before each timed run it sleeps 0.1 s (not
# timed) so the background deliveries of earlier runs are not competing for the two cores; at the
# end every one of them must be in push.log as delivered.
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
printf '%s\n' "The build finished: 312 tests passed, 0 failed. The release notes are in the usual place, and the deploy can go ahead whenever you are ready." > "$work/reply.txt"

hyperfine --warmup 3 --runs "$RUNS" --prepare 'sleep 0.1' --export-json "$work/hook.json" \
  -n "true" "true" \
  -n "send-push --hook MSG < reply" "$BIN/send-push --hook msg-1 < $work/reply.txt" \
  -n "send-push --detach --body -  < reply" "$BIN/send-push --detach --title Sven --body - < $work/reply.txt 2>/dev/null" \
  -n "send-push MSG PREVIEW (whole delivery)" "$BIN/send-push msg-1 \"\$(cat $work/reply.txt)\" >/dev/null 2>&1" >/dev/null
python3 - "$work/hook.json" <<'PY'
import json, sys
rows = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
whole = rows["send-push MSG PREVIEW (whole delivery)"]["median"]
for name, r in rows.items():
    print(f"   {name:<40} median {r['median']*1000:6.2f} ms  (min {r['min']*1000:5.2f}, ratio to whole send {r['median']/whole:4.2f})")
hook = rows["send-push --hook MSG < reply"]["median"]
print(f"   --hook foreground target < 15 ms: {'met' if hook < 0.015 else 'MISSED'} ({hook*1000:.2f} ms)")
PY
# Every background delivery of the hook and detach runs must have reached the emulator.
expected=$(( 2 * 2 * (RUNS + 3) ))
for _ in $(seq 300); do
  delivered=$(grep -c '"outcome":"delivered"' "$work/state/push.log" || true)
  [ "$delivered" -ge "$expected" ] && break
  sleep 0.05
done
other=$(grep -vc '"outcome":"delivered"' "$work/state/push.log" || true)
echo "   push.log: $delivered of $expected background deliveries delivered, $other other records"
