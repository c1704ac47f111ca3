#!/usr/bin/env bash
# What register-apns costs against a large registry: one load (`list --json`) and one registration
# (`add`, the whole locked read-modify-write with fsync) into a file of 100,000 devices.
# Usage: bench/registry.sh BIN_DIR      (release products directory)
#        DEVICES=N overrides the registry size.
set -euo pipefail
BIN=${1:?usage: bench/registry.sh BIN_DIR}
tool="$BIN/register-apns"
devices=${DEVICES:-100000}
[ -x "$tool" ] || { echo "no $tool (build with: swift build -c release)" >&2; exit 66; }
command -v hyperfine >/dev/null || { echo "hyperfine is required (make bench-deps)" >&2; exit 69; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home"

# A registry as a busy server would hold it: every field set, a tenth of the devices in a group.
python3 - "$work/devices.orig.json" "$devices" <<'PY'
import hashlib, json, sys
path, count = sys.argv[1], int(sys.argv[2])
devices = {}
for i in range(count):
    devices[f"device-{i:06d}"] = {
        "token": hashlib.sha256(str(i).encode()).hexdigest(),
        "environment": "production" if i % 4 else "sandbox",
        "name": f"iPhone {i}", "model": "iPhone15,2", "os_version": "17.4.1", "app_version": "2.3.0",
        "groups": ["beta"] if i % 10 == 0 else [],
        "registered_at": "2024-05-01T12:00:00.000Z",
        "last_seen_at": f"2024-06-{1 + i % 28:02d}T08:{i % 60:02d}:00.123Z",
        "last_delivered_at": None if i % 3 else "2024-06-30T18:00:00.000Z",
    }
with open(path, "w") as out:
    out.write('{\n  "version": 1,\n  "devices": {\n')
    out.write(",\n".join(f"    {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in devices.items()))
    out.write("\n  }\n}\n")
PY
cp "$work/devices.orig.json" "$work/devices.json"
listed=$("$tool" list --json --state-file "$work/devices.json" | wc -l)
[ "$listed" -eq "$devices" ] || { echo "register-apns listed $listed devices, expected $devices" >&2; exit 1; }
new_token=$(printf '%064x' 48879)

hyperfine --warmup 3 -N --export-json "$work/load.json" \
  -n "load: list --json ($devices devices)" \
  "$tool list --json --state-file $work/devices.json" >/dev/null
hyperfine --warmup 3 -N --export-json "$work/add.json" \
  --prepare "cp $work/devices.orig.json $work/devices.json" \
  -n "add one device ($devices devices)" \
  "$tool add bench-new-device $new_token --state-file $work/devices.json" >/dev/null
"$tool" list --json --state-file "$work/devices.json" | grep -c '"device_id":"bench-new-device"' >/dev/null \
  || { echo "the benchmarked registration did not land" >&2; exit 1; }

python3 - "$work/load.json" "$work/add.json" "$(stat -c %s "$work/devices.orig.json")" <<'PY'
import json, sys
size = int(sys.argv[3])
print(f"register-apns: {size / 1e6:.1f} MB registry, median wall time per run (hyperfine)")
for path in sys.argv[1:3]:
    for r in json.load(open(path))["results"]:
        print(f"  {r['command']:<40} median {r['median']*1000:7.1f} ms  (min {r['min']*1000:.1f}, max {r['max']*1000:.1f}, {len(r['times'])} runs)")
add = json.load(open(sys.argv[2]))["results"][0]["median"] * 1000
print(f"  target: one registration under 300 ms: {'met' if add < 300 else 'NOT met'} ({add:.0f} ms)")
PY
