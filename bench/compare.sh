#!/usr/bin/env bash
# Two builds side by side in one run, for a change that must not make anything slower (issue 17's
# guard rail): start-up of each tool and its warm paths, one push, a 10,000-device fan-out, the
# foreground of --detach, and serve's registrations. Both builds talk to the same emulator (AFTER's);
# commands are interleaved where the tool allows it, and every figure is a median.
# Usage: bench/compare.sh BEFORE_BIN AFTER_BIN     (RUNS=5 fan-out pairs, DURATION=15s serve run)
set -euo pipefail
BEFORE=${1:?usage: bench/compare.sh BEFORE_BIN AFTER_BIN}
AFTER=${2:?usage: bench/compare.sh BEFORE_BIN AFTER_BIN}
RUNS=${RUNS:-5}
DURATION=${DURATION:-15s}
here=$(cd "$(dirname "$0")" && pwd)
BIN=$AFTER
source "$here/lib.sh"

start_emulator --quiet --record /dev/null
export APNS_PRODUCTION_URL="https://127.0.0.1:$port" APNS_CA_FILE="$ca" PUSHKIT_STATE_DIR="$work/state"
device=$(printf 'a1%.0s' $(seq 32))
"$AFTER/register-apns" phone "$device" >/dev/null
"$AFTER/register-apns" ipad "$(printf 'b2%.0s' $(seq 32))" >/dev/null
"$AFTER/apns-jwt" >/dev/null

# hyperfine's medians as "name median-ms" lines, then before/after ratios.
report() {
  python3 - "$1" <<'PY'
import json, sys
rows = {r["command"]: r["median"] * 1000 for r in json.load(open(sys.argv[1]))["results"]}
for name in sorted({n.split(": ", 1)[1] for n in rows}, key=lambda n: list(rows).index("before: " + n)):
    before, after = rows["before: " + name], rows["after: " + name]
    print(f"   {name:<44} before {before:7.2f} ms   after {after:7.2f} ms   after/before {after / before:4.2f}")
PY
}

echo "1. start-up and warm paths (hyperfine -N, 60 runs each)"
arguments=()
for what in "apns-jwt --help" "register-apns --help" "send-push --help" "apns-jwt" "register-apns list" \
            "send-push --dry-run --body hi"; do
  for build in before after; do
    dir=$BEFORE; [ "$build" = after ] && dir=$AFTER
    arguments+=(-n "$build: $what" "$dir/$what")
  done
done
hyperfine -N --warmup 5 --runs 60 --export-json "$work/start.json" "${arguments[@]}" >/dev/null 2>&1
report "$work/start.json"

echo "2. one push to one device, whole process (hyperfine -N, 40 runs each)"
hyperfine -N --warmup 3 --runs 40 --export-json "$work/one.json" \
  -n "before: send-push --token T --body hi" "$BEFORE/send-push --token $device --body hi" \
  -n "after: send-push --token T --body hi" "$AFTER/send-push --token $device --body hi" >/dev/null 2>&1
report "$work/one.json"

echo "3. foreground of send-push --detach to the two devices (hyperfine -N, 40 runs each)"
hyperfine -N --warmup 3 --runs 40 --prepare 'sleep 0.1' --export-json "$work/detach.json" \
  -n "before: send-push --detach --body hi" "$BEFORE/send-push --detach --body hi" \
  -n "after: send-push --detach --body hi" "$AFTER/send-push --detach --body hi" >/dev/null 2>&1
report "$work/detach.json"

echo "4. fan-out to 10,000 devices over one connection, whole process ($RUNS interleaved pairs)"
write_devices "$work/devices.seed" 10000
declare -A rate rss
for _ in $(seq "$RUNS"); do
  for build in before after; do
    dir=$BEFORE; [ "$build" = after ] && dir=$AFTER
    cp "$work/devices.seed" "$work/fanout.json"
    APNS_STATE_FILE="$work/fanout.json" /usr/bin/time -f "%e %M" -o "$work/time" "$dir/send-push" --body hi \
      > "$work/fanout.out" 2> "$work/fanout.err" || { cat "$work/fanout.err" >&2; exit 1; }
    delivered=$(grep -c '^delivered' "$work/fanout.out")
    [ "$delivered" = 10000 ] || { echo "$build: only $delivered of 10000 delivered" >&2; exit 1; }
    read -r seconds kb < "$work/time"
    rate[$build]+="$(python3 -c "print(round(10000 / $seconds))") "
    rss[$build]+="$kb "
  done
done
for build in before after; do
  r=$(tr ' ' '\n' <<<"${rate[$build]}" | grep . | median); m=$(tr ' ' '\n' <<<"${rss[$build]}" | grep . | median)
  echo "   $build: ${rate[$build]}req/s, median $r; peak RSS median $((m / 1024)) MiB"
done

echo "5. serve: registrations (wrk -t2 -c64, $DURATION) and sends one at a time (wrk -t1 -c1, 5 s), bench/serve.sh"
stop_emulator
for build in before after; do
  dir=$BEFORE; [ "$build" = after ] && dir=$AFTER
  DURATION=$DURATION SEND_DURATION=5s bash "$here/serve.sh" "$dir" > "$work/serve-$build.out" 2>&1 \
    || echo "   $build: bench/serve.sh failed (see below)"
  grep -E 'registrations/s;|wrk -t1 -c1:' "$work/serve-$build.out" | sed "s/^ */   $build: /" \
    || { echo "   $build: no figures"; tail -5 "$work/serve-$build.out"; }
done
