#!/usr/bin/env bash
# What the command-line tools cost against a large registry (release build): each operation on a
# file of 100,000 devices, beside the same operation on a file of 10 devices (same run, same
# machine, so the difference is what the registry's size costs). Median wall time (hyperfine -N,
# the file restored before each run of a writing command) and peak RSS (/usr/bin/time, median of 5).
#   list --json               load and print every device
#   add (new device)          one registration: locked read, change, write of the whole file, fsync
#   add (existing device)     the same for an update
#   remove                    one device by id
#   import 1,000 (JSON Lines) merge 1,000 devices, half new, half updates
#   import devices.db         merge an SQLite table of 1,000 devices (libsqlite3 loaded at run time)
#   send-push --device        one push to one registered device against apns-emulator, then the
#                             delivery time written back (a second whole-file write)
# Usage: bench/registry.sh BIN_DIR      (release products directory)
#        DEVICES=N overrides the registry size; RUNS=N the hyperfine runs (default 15).
set -euo pipefail
BIN=${1:?usage: bench/registry.sh BIN_DIR}
devices=${DEVICES:-100000}
runs=${RUNS:-15}
for tool in register-apns send-push apns-emulator; do
  [ -x "$BIN/$tool" ] || { echo "no $BIN/$tool (build with: make build)" >&2; exit 66; }
done
for command in hyperfine python3; do
  command -v "$command" >/dev/null || { echo "$command is required (make bench-deps)" >&2; exit 69; }
done
[ -x /usr/bin/time ] || { echo "/usr/bin/time is required (apt-get install time)" >&2; exit 69; }
source "$(dirname "$0")/lib.sh"
tool="$BIN/register-apns"

# Registries as a busy server would hold them: every field set, a tenth of the devices in a group.
# Also the inputs of the imports: 1,000 devices, half of them already registered.
python3 - "$work" "$devices" <<'PY'
import hashlib, json, os, sqlite3, sys
work, count = sys.argv[1], int(sys.argv[2])
def token(i): return hashlib.sha256(str(i).encode()).hexdigest()
def record(i):
    return {"token": token(i), "environment": "production" if i % 4 else "sandbox",
            "name": f"iPhone {i}", "model": "iPhone15,2", "os_version": "17.4.1", "app_version": "2.3.0",
            "groups": ["beta"] if i % 10 == 0 else [], "registered_at": "2024-05-01T12:00:00.000Z",
            "last_seen_at": f"2024-06-{1 + i % 28:02d}T08:{i % 60:02d}:00.123Z",
            "last_delivered_at": None if i % 3 else "2024-06-30T18:00:00.000Z"}
def registry(path, n):
    with open(path, "w") as out:
        out.write('{\n  "version": 1,\n  "devices": {\n')
        out.write(",\n".join(f'    "device-{i:06d}": ' + json.dumps(record(i), separators=(",", ":")) for i in range(n)))
        out.write("\n  }\n}\n")
registry(f"{work}/large.orig.json", count)
registry(f"{work}/small.orig.json", 10)
# Updates of devices 0..499 (registered later than the file says) and 500 new ones.
imported = list(range(500)) + list(range(count, count + 500))
with open(f"{work}/import.jsonl", "w") as out:
    for i in imported:
        line = dict(record(i), device_id=f"device-{i:06d}", last_seen_at="2025-01-01T00:00:00.000Z")
        out.write(json.dumps(line, separators=(",", ":")) + "\n")
db = sqlite3.connect(f"{work}/devices.db")
db.execute("CREATE TABLE devices (token TEXT PRIMARY KEY, device_name, device_model, os_version, app_version,"
           " registered_at, last_seen_at)")
db.executemany("INSERT INTO devices VALUES (?, ?, ?, ?, ?, ?, ?)",
               [(token(count + 1000 + i), f"iPad {i}", "iPad13,1", "17.4", "2.3.0", "2024-05-01 12:00:00", 1735689600)
                for i in range(1000)])
db.commit()
PY
listed=$("$tool" list --json --state-file "$work/large.orig.json" | wc -l)
[ "$listed" -eq "$devices" ] || { echo "register-apns listed $listed devices, expected $devices" >&2; exit 1; }

start_emulator --quiet --record /dev/null
export APNS_PRODUCTION_URL="https://127.0.0.1:$port" APNS_CA_FILE="$ca"
"$BIN/apns-jwt" >/dev/null   # warm the provider token cache

new_token=$(printf '%064x' 48879)
# name|writes the file (restored before each run)|arguments after the tool
operations=(
  "list --json|no|register-apns list --json"
  "add (new device)|yes|register-apns add bench-new-device $new_token"
  "add (existing device)|yes|register-apns add device-000005 $new_token"
  "remove|yes|register-apns remove device-000007"
  "import 1,000 (JSON Lines)|yes|register-apns import $work/import.jsonl"
  "import devices.db (1,000)|yes|register-apns import $work/devices.db"
  "send-push --device|yes|send-push --device device-000003 --body hi"
)
# A build from before the SQLite import (for a comparison) skips that row.
if ! "$tool" import --help | grep -q SQLite; then
  operations=("${operations[@]/import devices.db*/}")
fi
for entry in "${operations[@]}"; do
  [ -n "$entry" ] || continue
  IFS='|' read -r name writes arguments <<<"$entry"
  program=${arguments%% *}
  rest=${arguments#* }
  commands=()
  for size in small large; do
    label="$name ($([ $size = large ] && echo "$devices" || echo 10) devices)"
    prepare=()
    if [ "$writes" = yes ]; then prepare=(--prepare "cp $work/$size.orig.json $work/$size.json"); fi
    cp "$work/$size.orig.json" "$work/$size.json"
    commands+=("${prepare[@]}" -n "$label" "$BIN/$program $rest --state-file $work/$size.json")
  done
  hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/hf-$RANDOM.json" "${commands[@]}" \
    > /dev/null 2> "$work/hyperfine.err" || { cat "$work/hyperfine.err" >&2; exit 1; }
done
# Peak RSS of each operation on the large file, median of 5 runs.
for entry in "${operations[@]}"; do
  [ -n "$entry" ] || continue
  IFS='|' read -r name writes arguments <<<"$entry"
  program=${arguments%% *}
  rest=${arguments#* }
  for _ in 1 2 3 4 5; do
    cp "$work/large.orig.json" "$work/large.json"
    # shellcheck disable=SC2086
    /usr/bin/time -f "%M" -o "$work/rss" "$BIN/$program" $rest --state-file "$work/large.json" > /dev/null 2>&1
    cat "$work/rss"
  done | median > "$work/rss-$(printf %s "$name" | tr -c 'a-z0-9' '_')"
done
cp "$work/large.orig.json" "$work/large.json"
"$tool" add bench-new-device "$new_token" --state-file "$work/large.json" >/dev/null
"$tool" list --json --state-file "$work/large.json" | grep -c '"device_id":"bench-new-device"' >/dev/null \
  || { echo "the benchmarked registration did not land" >&2; exit 1; }

python3 - "$work" "$(stat -c %s "$work/large.orig.json")" "$devices" "${BENCH_ROWS:-/dev/null}" <<'PY'
import glob, json, os, sys
work, size, devices = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = open(sys.argv[4], "a")
print(f"register-apns and send-push on a {devices:,}-device registry ({size / 1e6:.1f} MB) and on 10 devices:"
      " median wall time (hyperfine -N), peak RSS (median of 5)")
print(f"   {'operation':<28} {'10 devices':>11} {f'{devices:,} devices':>16} {'difference':>11} {'peak RSS':>10}")
results = []
for path in glob.glob(f"{work}/hf-*.json"):
    results += json.load(open(path))["results"]
by_name = {r["command"]: r for r in results}
names = []
for command in by_name:
    name = command.rsplit(" (", 1)[0]
    if name not in names: names.append(name)
order = ["list --json", "add (new device)", "add (existing device)", "remove", "import 1,000 (JSON Lines)",
         "import devices.db (1,000)", "send-push --device"]
for name in sorted(names, key=lambda n: order.index(n) if n in order else 99):
    small, large = by_name.get(f"{name} (10 devices)"), by_name.get(f"{name} ({devices} devices)")
    if not small or not large: continue
    key = "".join(c if c in "abcdefghijklmnopqrstuvwxyz0123456789" else "_" for c in name)
    rss_path = f"{work}/rss-{key}"
    rss = int(open(rss_path).read().split()[0]) / 1024 if os.path.exists(rss_path) else float("nan")
    print(f"   {name:<28} {small['median'] * 1000:8.1f} ms {large['median'] * 1000:13.1f} ms"
          f" {(large['median'] - small['median']) * 1000:+8.1f} ms {rss:7.0f} MiB")
    rows.write(json.dumps({"group": "registry", "what": f"{name}, {devices:,} devices (peak RSS {rss:.0f} MiB)",
                           "value": round(large["median"] * 1000, 1), "unit": "ms", "reference": "10 devices",
                           "reference_value": round(small["median"] * 1000, 1)}) + "\n")
PY
