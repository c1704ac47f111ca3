# Shared pieces of the benchmark scripts: a throw-away key and HOME, and an emulator to talk to.
# Source it after setting BIN (release products directory); it creates $work and cleans up on exit.
work=$(mktemp -d)
emulator_pid=""
cleanup() {
  if [ -n "$emulator_pid" ]; then kill -TERM "$emulator_pid" 2>/dev/null || true; wait "$emulator_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$work/key.p8"
export HOME="$work/home" APNS_KEY_PATH="$work/key.p8" APNS_KEY_ID=BENCHKEY01 APNS_TEAM_ID=BENCHTEAM1 APNS_TOPIC=com.example.bench

# Starts the emulator with the given extra arguments and waits for its listening line;
# sets $port and $ca.
start_emulator() {
  : > "$work/emulator.out"
  "$BIN/apns-emulator" --port 0 "$@" > "$work/emulator.out" 2> "$work/emulator.err" &
  emulator_pid=$!
  for _ in $(seq 500); do
    line=$(head -n 1 "$work/emulator.out")
    port=$(sed -n 's/^listening on https:\/\/[^ ]*:\([0-9]*\) (ca: .*)$/\1/p' <<<"$line")
    ca=$(sed -n 's/^listening on .* (ca: \(.*\))$/\1/p' <<<"$line")
    [ -n "$port" ] && return 0
    kill -0 "$emulator_pid" 2>/dev/null || { cat "$work/emulator.err" >&2; return 1; }
    sleep 0.02
  done
  echo "apns-emulator did not start" >&2
  return 1
}

stop_emulator() {
  kill -TERM "$emulator_pid"
  wait "$emulator_pid" || true
  emulator_pid=""
}

# median of the numbers on standard input
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# write_devices FILE N: a version 1 devices file of N production devices, device-00000 with token 0...
write_devices() {
  python3 - "$1" "$2" <<'PY'
import json, sys
devices = {f"device-{i:05d}": {"token": f"{i:064x}", "environment": "production", "groups": [],
           "registered_at": "2026-01-01T00:00:00.000Z", "last_seen_at": "2026-01-01T00:00:00.000Z"} for i in range(int(sys.argv[2]))}
json.dump({"version": 1, "devices": devices}, open(sys.argv[1], "w"))
PY
}

# write_fcm_devices FILE N: the same with N FCM devices, fcm-00000 with a registration token of
# today's shape (about 160 characters), no environment.
write_fcm_devices() {
  python3 - "$1" "$2" <<'PY'
import json, sys
devices = {f"fcm-{i:05d}": {"token": f"c{i:05d}Yv0QxS2bP1cLmN4o:APA91b" + "Fz7_-q" * 22, "transport": "fcm", "groups": [],
           "registered_at": "2026-01-01T00:00:00.000Z", "last_seen_at": "2026-01-01T00:00:00.000Z"} for i in range(int(sys.argv[2]))}
json.dump({"version": 1, "devices": devices}, open(sys.argv[1], "w"))
PY
}

# bench_row KEY=VALUE...: appends one row for the summary table (bench/table.py) to $BENCH_ROWS,
# e.g. bench_row group=send-push "what=one push" value=21.3 unit=ms "reference=bare curl" \
#      reference_value=16.4 max_ratio=1.3      (numbers stay numbers; without $BENCH_ROWS, nothing)
bench_row() {
  [ -n "${BENCH_ROWS:-}" ] || return 0
  python3 - "$@" >> "$BENCH_ROWS" <<'PY'
import json, sys
row = {}
for argument in sys.argv[1:]:
    key, value = argument.split("=", 1)
    try:
        row[key] = float(value)
    except ValueError:
        row[key] = value
print(json.dumps(row))
PY
}
