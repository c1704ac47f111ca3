#!/usr/bin/env bash
# How many requests a second apns-emulator answers: h2load over one TLS connection, 100 concurrent
# streams, 10,000 POSTs with a valid provider token, three runs, median printed.
# Two set-ups: the default (a record line per request to a file, a summary line to stderr, also a
# file) and --quiet --record /dev/null (the server alone).
# Usage: bench/emulator.sh BIN_DIR      (release products directory)
set -euo pipefail
BIN=${1:?usage: bench/emulator.sh BIN_DIR}
RUNS=${RUNS:-3}
source "$(dirname "$0")/lib.sh"
token=$("$BIN/apns-jwt")
printf '%s' '{"aps":{"alert":{"title":"Benchmark","body":"Hello from h2load"},"badge":1,"sound":"default"},"id":42}' > "$work/payload.json"
device=$(printf 'a1%.0s' $(seq 32))

# Runs h2load $RUNS times against the running emulator and prints each rate and the median.
measure() {
  local label=$1 rates=()
  for _ in $(seq "$RUNS"); do
    out=$(h2load -n 10000 -c 1 -m 100 \
      -H "authorization: bearer $token" -H "apns-topic: $APNS_TOPIC" -H "apns-push-type: alert" \
      -d "$work/payload.json" "https://127.0.0.1:$port/3/device/$device")
    ok=$(sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p' <<<"$out")
    rate=$(sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out")
    if [ "$ok" != 10000 ]; then echo "$label: only $ok of 10000 answered 200" >&2; echo "$out" >&2; return 1; fi
    rates+=("$rate")
  done
  median=$(printf '%s\n' "${rates[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
  printf '%-52s runs: %s  median: %s req/s\n' "$label" "${rates[*]}" "$median"
}

start_emulator --record "$work/records.jsonl"
measure "default (records to a file, summaries to stderr)"
stop_emulator
lines=$(wc -l < "$work/records.jsonl")
[ "$lines" -eq $((RUNS * 10000)) ] || echo "warning: $lines records for $((RUNS * 10000)) requests" >&2

start_emulator --quiet --record /dev/null
measure "--quiet --record /dev/null"
stop_emulator
