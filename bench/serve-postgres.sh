#!/usr/bin/env bash
# Two `register-apns serve` processes sharing one registry (release build), the registration run of
# bench/serve.sh split over them: two wrk -t1 -c32 at once, one per server, POST /register-apns,
# 1,000 devices cycling (bench/serve-register.lua), rate limit off. Run twice, same machine, same
# minute: the servers sharing one state file (the reference), then sharing a PostgreSQL database
# (a throw-away cluster from Debian's postgresql, Unix socket, fsync on, synchronous_commit on).
# Reports registrations/s (both servers together) and the worse of the two p99s, then checks every
# one of the 1,000 devices in `register-apns list --json`.
# Usage: bench/serve-postgres.sh BIN_DIR      DURATION=30s
#        PREFILL=N: both registries start holding N other devices (the file written as serve.sh writes
#        it, the database filled from it by register-apns import); the rows then name N
set -euo pipefail
BIN=${1:?usage: bench/serve-postgres.sh BIN_DIR}
DURATION=${DURATION:-30s}
PREFILL=${PREFILL:-0}
here=$(cd "$(dirname "$0")" && pwd)
for tool in register-apns register-apns-serve; do
  [ -x "$BIN/$tool" ] || { echo "no $BIN/$tool (build with: make build)" >&2; exit 66; }
done
for command in wrk curl python3; do
  command -v "$command" >/dev/null || { echo "$command is required (make bench-deps)" >&2; exit 69; }
done
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$pgbin/initdb" ] || { echo "PostgreSQL's server is required (make deps installs postgresql)" >&2; exit 69; }
source "$here/lib.sh"

as_server() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cluster="$work/pg"
servers=()
stop_all() {
  for pid in "${servers[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  servers=()
  [ -d "$cluster/data" ] && as_server "$pgbin/pg_ctl" -D "$cluster/data" -m fast -w stop >/dev/null 2>&1 || true
}
trap 'stop_all; cleanup' EXIT

start_server() { # log, then serve's arguments; sets $server_port
  local log=$1
  shift
  "$BIN/register-apns" serve --listen 127.0.0.1:0 --no-auth --rate-limit 0 "$@" 2> "$log" &
  servers+=($!)
  for _ in $(seq 500); do
    server_port=$(sed -n '1,5s/^register-apns serve: listening on http:\/\/127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log")
    [ -n "$server_port" ] && return 0
    sleep 0.02
  done
  cat "$log" >&2
  return 1
}

# The PREFILL devices (bench/prefill.py, as serve.sh makes them) in $work/prefill.json.
if [ "$PREFILL" -gt 0 ]; then
  python3 "$here/prefill.py" "$work/prefill.json" "$PREFILL"
fi

run() { # name, state (file path or URL)
  local name=$1 state=$2
  mkdir -p "$work/$name"
  if [ "$PREFILL" -gt 0 ]; then
    if [ "$name" = file ]; then cp "$work/prefill.json" "$state"; else
      local started=$(date +%s.%N)
      "$BIN/register-apns" import "$work/prefill.json" --state-file "$state" >/dev/null
      echo "   the database filled with $PREFILL devices by register-apns import in $(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$started" "$(date +%s.%N)") s"
    fi
  fi
  start_server "$work/$name/serve-1.err" --state-file "$state"; local first=$server_port
  start_server "$work/$name/serve-2.err" --state-file "$state"; local second=$server_port
  # One registration per server before the run, so the run measures the steady state: a server on
  # PostgreSQL reads every device on its first request (a server on the file does before it listens).
  for port in $first $second; do
    local took
    took=$(curl -sf -o /dev/null -w '%{time_total}' -H 'Content-Type: application/json' \
      -d "{\"device_token\": \"warm-up-$port\", \"apns_token\": \"$(printf 'e0%.0s' $(seq 32))\"}" \
      "http://127.0.0.1:$port/register-apns")
    echo "   $name: first registration on the server at port $port took $(python3 -c "import sys; print(f'{float(sys.argv[1]) * 1000:.0f}')" "$took") ms"
  done
  wrk -t1 -c32 -d"$DURATION" --latency -s "$here/serve-register.lua" "http://127.0.0.1:$first/register-apns" \
    > "$work/$name/wrk-1.out" &
  local wrk1=$!
  wrk -t1 -c32 -d"$DURATION" --latency -s "$here/serve-register.lua" "http://127.0.0.1:$second/register-apns" \
    > "$work/$name/wrk-2.out"
  wait $wrk1
  for pid in "${servers[@]}"; do kill -TERM "$pid"; wait "$pid" || true; done
  servers=()
  "$BIN/register-apns" list --json --state-file "$state" > "$work/$name/list.jsonl"
  python3 - "$name" "$work/$name/wrk-1.out" "$work/$name/wrk-2.out" "$work/$name/list.jsonl" "${BENCH_ROWS:-/dev/null}" "$PREFILL" <<'PY'
import json, sys
name, outputs, listing = sys.argv[1], sys.argv[2:4], sys.argv[4]
prefill = int(sys.argv[6])
runs = []
for path in outputs:
    line = next(l for l in open(path) if l.startswith("serve-register:"))
    runs.append(dict(kv.split("=") for kv in line.split()[1:]))
rate = sum(int(r["requests"]) / float(r["seconds"]) for r in runs)
p99 = max(int(r["p99_us"]) for r in runs) / 1000
p50 = max(int(r["p50_us"]) for r in runs) / 1000
bad = sum(int(r["non200"]) + int(r["errors"]) for r in runs)
listed = {d["device_id"]: d["token"] for d in map(json.loads, open(listing))}
wrong = [i for i in range(1000) if listed.get(f"bench-{i}") != f"{i:08x}" * 8]
print(f"   {name:<10} two servers: {rate:,.0f} registrations/s; p50 {p50:.2f} ms, p99 {p99:.2f} ms (worse of the two);"
      f" non-200 or errors {bad}; {1000 - len(wrong)} of 1,000 devices listed with the right token")
with open(sys.argv[5], "a") as rows:
    what = f"two serves sharing one {'database' if name == 'postgres' else 'file'}"
    if prefill:
        what += f" with {prefill:,} other devices"
    rows.write(json.dumps({"group": "registry", "what": f"{what}: registrations (2 x wrk -c32)", "value": round(rate),
                           "unit": "registrations/s"}) + "\n")
    rows.write(json.dumps({"group": "registry", "what": f"{what}: registration p99 (worse server)",
                           "value": round(p99, 1), "unit": "ms"}) + "\n")
if wrong or bad:
    sys.exit(1)
PY
}

echo "two register-apns serve processes on one registry: 2 x wrk -t1 -c32 -d$DURATION, POST /register-apns, 1,000 devices$([ "$PREFILL" -gt 0 ] && echo ", $PREFILL other devices registered before")"
run file "$work/file/devices.json"
mkdir -p "$cluster"
chmod o+x "$work"  # the server runs as postgres when this runs as root
[ "$(id -u)" = 0 ] && chown postgres "$cluster"
as_server "$pgbin/initdb" -D "$cluster/data" -U pushkit -A trust >/dev/null
as_server "$pgbin/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" \
  -o "-k $cluster -c listen_addresses='' -c max_connections=50" -w start >/dev/null
url="postgresql://pushkit@/postgres?host=$cluster"
"$BIN/register-apns" db migrate --state-file "$url" >/dev/null
run postgres "$url"
