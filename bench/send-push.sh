#!/usr/bin/env bash
# send-push against the emulator on loopback (release build):
#  1. one push to one device, whole process, warm token cache, next to the shell approach from
#     Apple's documentation (openssl JWT + one `curl --http2`), in the same run;
#  2. fan-out to 10,000 registered devices over one connection, next to h2load against the same
#     emulator (10,000 requests, 1 connection, 100 streams), with send-push's peak RSS;
#  3. the same fan-out to 10,000 FCM devices (the emulator playing FCM), next to h2load posting the
#     same FCM message with the same access token.
# Usage: bench/send-push.sh BIN_DIR
set -euo pipefail
BIN=${1:?usage: bench/send-push.sh BIN_DIR}
RUNS=${RUNS:-7}   # this machine is shared and noisy: medians of 7 interleaved pairs
ONE_ROUNDS=${ONE_ROUNDS:-40}
source "$(dirname "$0")/lib.sh"

start_emulator --quiet --record /dev/null
export APNS_PRODUCTION_URL="https://127.0.0.1:$port" APNS_CA_FILE="$ca" APNS_STATE_FILE="$work/devices.json"
export FCM_URL="https://127.0.0.1:$port" FCM_SERVICE_ACCOUNT="$(dirname "$ca")/fcm-service-account.json"
device=$(printf 'a1%.0s' $(seq 32))
"$BIN/apns-jwt" >/dev/null   # warm the token cache

cat > "$work/shell-push.sh" <<SH
# Apple's documented recipe: sign a JWT with openssl, then one curl --http2 request.
jwt_header=\$(printf '{ "alg": "ES256", "kid": "%s" }' "\$APNS_KEY_ID" | base64 | tr -d '=' | tr '/+' '_-' | tr -d '\n')
jwt_claims=\$(printf '{ "iss": "%s", "iat": %d }' "\$APNS_TEAM_ID" "\$(date +%s)" | base64 | tr -d '=' | tr '/+' '_-' | tr -d '\n')
sig=\$(printf '%s' "\$jwt_header.\$jwt_claims" | openssl dgst -binary -sha256 -sign "\$APNS_KEY_PATH" | base64 | tr -d '=' | tr '/+' '_-' | tr -d '\n')
curl -s -o /dev/null --http2 --cacert "$ca" -H "authorization: bearer \$jwt_header.\$jwt_claims.\$sig" \
  -H "apns-topic: \$APNS_TOPIC" -H "apns-push-type: alert" -d '{"aps":{"alert":{"body":"hi"}}}' \
  "https://127.0.0.1:$port/3/device/$device"
SH

echo "1. one push to one device, whole process, warm token cache ($ONE_ROUNDS interleaved rounds, no shell)"
# The reference: curl --http2 with a token made beforehand (what a script holding a token does).
ready_token=$("$BIN/apns-jwt")
payload='{"aps":{"alert":{"body":"hi"}}}'
{
  printf 'send-push --token T --body hi\t%s\t--token\t%s\t--body\thi\n' "$BIN/send-push" "$device"
  printf 'curl --http2 with a ready token\tcurl\t-s\t-o\t/dev/null\t--http2\t--cacert\t%s\t-H\t%s\t-H\t%s\t-d\t%s\t%s\n' \
    "$ca" "authorization: bearer $ready_token" "apns-topic: $APNS_TOPIC" "$payload" "https://127.0.0.1:$port/3/device/$device"
  printf "Apple's shell recipe (openssl JWT + curl)\tbash\t%s\n" "$work/shell-push.sh"
} > "$work/one.commands"
python3 "$(dirname "$0")/interleave.py" "$ONE_ROUNDS" "$work/one.json" "$work/one.commands"
python3 - "$work/one.json" "${BENCH_ROWS:-/dev/null}" <<'PY'
import json, statistics, sys
times = json.load(open(sys.argv[1]))
medians = {name: statistics.median(values) for name, values in times.items()}
push, curl = medians["send-push --token T --body hi"], medians["curl --http2 with a ready token"]
print(f"   send-push / curl: {push / curl:.2f}x (target <= 1.3x, issue 19)")
with open(sys.argv[2], "a") as out:
    out.write(json.dumps({"group": "send-push", "what": "one push, whole process, warm token", "value": round(push, 2),
                          "unit": "ms", "reference": "curl --http2 with a ready token",
                          "reference_value": round(curl, 2), "max_ratio": 1.3}) + "\n")
PY
echo "   (Apple's recipe signs DER, which the emulator answers 403 InvalidProviderToken: same round trip, cost comparable)"

# fan_out SEED WHAT REFERENCE H2LOAD_ARGS...: RUNS interleaved pairs of send-push to every device of
# the registry SEED (copied fresh each time) and h2load -n 10000 -c 1 -m 100 H2LOAD_ARGS against the
# same emulator; prints both with their medians and send-push's peak RSS, and adds the rows WHAT
# (rate, against REFERENCE) and WHAT's peak RSS.
fan_out() {
  local seed=$1 what=$2 reference=$3; shift 3
  local rates=() h2=() rss=() seconds kb delivered out f h r
  for _ in $(seq "$RUNS"); do
    cp "$seed" "$APNS_STATE_FILE"
    /usr/bin/time -f "%e %M" -o "$work/time" "$BIN/send-push" --body hi > "$work/fanout.out" 2> "$work/fanout.err" || { cat "$work/fanout.err" >&2; exit 1; }
    read -r seconds kb < "$work/time"
    delivered=$(grep -c '^delivered' "$work/fanout.out")
    [ "$delivered" = 10000 ] || { echo "only $delivered of 10000 delivered" >&2; tail -3 "$work/fanout.err" >&2; exit 1; }
    rates+=("$(python3 -c "print(round(10000 / $seconds))")")
    rss+=("$kb")
    out=$(h2load -n 10000 -c 1 -m 100 "$@")
    h2+=("$(sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out")")
  done
  f=$(printf '%s\n' "${rates[@]}" | median); h=$(printf '%s\n' "${h2[@]}" | median); r=$(printf '%s\n' "${rss[@]}" | median)
  echo "   send-push, whole process (start, read 10,000-device registry, send, write registry): ${rates[*]} req/s, median $f"
  echo "   h2load -n 10000 -c 1 -m 100 against the same emulator:                              ${h2[*]} req/s, median $h"
  python3 -c "print(f'   ratio send-push / h2load: {$f / $h:.2f}   (target >= 0.7, issue 19)')"
  echo "   send-push peak RSS: ${rss[*]} KiB, median $((r / 1024)) MiB (target <= 32 MB, issue 19)"
  bench_row group=send-push "what=$what, one connection" "value=$f" unit=req/s \
    "reference=$reference" "reference_value=$h" min_ratio=0.7
  bench_row group=send-push "what=$what: peak RSS" \
    "value=$(python3 -c "print(round($r * 1024 / 1e6, 1))")" unit=MB max_value=32
}

echo "2. fan-out to 10,000 devices over one connection"
write_devices "$work/devices.seed" 10000
printf '%s' '{"aps":{"alert":{"body":"hi"},"sound":"default"}}' > "$work/payload.json"
token=$("$BIN/apns-jwt")
fan_out "$work/devices.seed" "fan-out to 10,000 devices" "h2load -c 1 -m 100, same server" \
  -H "authorization: bearer $token" -H "apns-topic: $APNS_TOPIC" -d "$work/payload.json" \
  "https://127.0.0.1:$port/3/device/$device"

echo "3. fan-out to 10,000 FCM devices over one connection (h2load posts the same FCM message with the same access token)"
write_fcm_devices "$work/fcm.seed" 10000
fcm_device=$(python3 -c 'print("c00000Yv0QxS2bP1cLmN4o:APA91b" + "Fz7_-q" * 22)')
"$BIN/send-push" --token "$fcm_device" --body hi > /dev/null 2>&1 || { echo "no FCM send" >&2; exit 1; }
access=$(python3 -c 'import json,sys; print(next(iter(json.load(open(sys.argv[1]))["tokens"].values()))["token"])' \
  "${PUSHKIT_STATE_DIR:-$HOME/.local/state/pushkit-free}/fcm-access-token.json")
printf '{"message":{"token":"%s","notification":{"body":"hi"},"apns":{"headers":{"apns-push-type":"alert","apns-priority":"10"},"payload":{"aps":{"alert":{"body":"hi"},"sound":"default"}}},"android":{"priority":"NORMAL"}}}' \
  "$fcm_device" > "$work/fcm-message.json"
fan_out "$work/fcm.seed" "fan-out to 10,000 FCM devices" "h2load -c 1 -m 100, same FCM message" \
  -H "authorization: Bearer $access" -H "content-type: application/json" -d "$work/fcm-message.json" \
  "https://127.0.0.1:$port/v1/projects/pushkit-emulator/messages:send"
