#!/usr/bin/env bash
# send-push against the emulator on loopback (release build):
#  1. one push to one device, whole process, warm token cache, next to the shell approach from
#     Apple's documentation (openssl JWT + one `curl --http2`), in the same run;
#  2. fan-out to 10,000 registered devices over one connection, next to h2load against the same
#     emulator (10,000 requests, 1 connection, 100 streams), with send-push's peak RSS.
# Usage: bench/send-push.sh BIN_DIR
set -euo pipefail
BIN=${1:?usage: bench/send-push.sh BIN_DIR}
RUNS=${RUNS:-7}   # this machine is shared and noisy: medians of 7 interleaved pairs
source "$(dirname "$0")/lib.sh"

start_emulator --quiet --record /dev/null
export APNS_PRODUCTION_URL="https://127.0.0.1:$port" APNS_CA_FILE="$ca" APNS_STATE_FILE="$work/devices.json"
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

echo "1. one push to one device (hyperfine, warm token cache)"
hyperfine --warmup 3 --runs 40 --export-json "$work/one.json" \
  -n "send-push (one device)" "$BIN/send-push --token $device --body hi" \
  -n "curl --http2 with \$(apns-jwt)" "curl -s -o /dev/null --http2 --cacert $ca -H 'authorization: bearer \$($BIN/apns-jwt)' -H 'apns-topic: $APNS_TOPIC' -d '{\"aps\":{\"alert\":{\"body\":\"hi\"}}}' https://127.0.0.1:$port/3/device/$device" \
  -n "Apple's shell recipe (openssl JWT + curl)" "bash $work/shell-push.sh" >/dev/null
python3 - "$work/one.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
base = rows[0]["median"]
for r in rows:
    print(f"   {r['command']:<44} median {r['median']*1000:7.2f} ms  ({r['median']/base:4.2f}x send-push)")
PY
echo "   (Apple's recipe signs DER, which the emulator answers 403 InvalidProviderToken: same round trip, cost comparable)"

echo "2. fan-out to 10,000 devices over one connection"
write_devices "$APNS_STATE_FILE" 10000
cp "$APNS_STATE_FILE" "$work/devices.seed"
printf '%s' '{"aps":{"alert":{"body":"hi"},"sound":"default"}}' > "$work/payload.json"
token=$("$BIN/apns-jwt")
fanout=() h2=() rss=()
for _ in $(seq "$RUNS"); do
  cp "$work/devices.seed" "$APNS_STATE_FILE"
  /usr/bin/time -f "%e %M" -o "$work/time" "$BIN/send-push" --body hi > "$work/fanout.out" 2> "$work/fanout.err" || { cat "$work/fanout.err" >&2; exit 1; }
  read -r seconds kb < "$work/time"
  delivered=$(grep -c '^delivered' "$work/fanout.out")
  [ "$delivered" = 10000 ] || { echo "only $delivered of 10000 delivered" >&2; tail -3 "$work/fanout.err" >&2; exit 1; }
  fanout+=("$(python3 -c "print(round(10000 / $seconds))")")
  rss+=("$kb")
  out=$(h2load -n 10000 -c 1 -m 100 -H "authorization: bearer $token" -H "apns-topic: $APNS_TOPIC" \
        -d "$work/payload.json" "https://127.0.0.1:$port/3/device/$device")
  h2+=("$(sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out")")
done
f=$(printf '%s\n' "${fanout[@]}" | median); h=$(printf '%s\n' "${h2[@]}" | median); r=$(printf '%s\n' "${rss[@]}" | median)
echo "   send-push, whole process (start, read 10,000-device registry, send, write registry): ${fanout[*]} req/s, median $f"
echo "   h2load -n 10000 -c 1 -m 100 against the same emulator:                              ${h2[*]} req/s, median $h"
python3 -c "print(f'   ratio send-push / h2load: {$f / $h:.2f}   (target >= 0.5)')"
echo "   send-push peak RSS: ${rss[*]} KiB, median $((r / 1024)) MiB (target < 40 MB)"
