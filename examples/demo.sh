#!/usr/bin/env bash
# `make demo`: the main job of the toolbox, offline. A throw-away key, a local apns-emulator in
# place of Apple (and of Google's FCM), three registered devices (an Android phone among them, one
# iPad dead), the push an assistant's reply hook would send, and a question the phone answers (the
# emulator playing the phone). Nothing outside a temporary directory is touched.
# Usage: examples/demo.sh BIN_DIR
set -euo pipefail
BIN=${1:?usage: examples/demo.sh BIN_DIR}
work=$(mktemp -d)
emulator_pid=""
serve_pid=""
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  [ -n "$emulator_pid" ] && kill "$emulator_pid" 2>/dev/null && wait "$emulator_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# A command as you would type (and paste) it: words with spaces or shell characters double-quoted.
shown() {
  local word out=""
  for word in "$@"; do
    case $word in ('' | *[!A-Za-z0-9_./:=@%+,-]*) word=\"$(printf '%s' "$word" | sed 's/["$`\\]/\\&/g')\";; esac
    out+="${out:+ }$word"
  done
  printf '%s' "$out"
}
# Shows each command as you would type it (tools on PATH), then runs it.
run() { printf '$ %s\n' "$(shown "${1#"$BIN/"}" "${@:2}")"; "$@"; }

step "a throw-away APNs key (yours is the .p8 from the Apple developer account)"
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$work/AuthKey_DEMO000001.p8"
chmod 600 "$work/AuthKey_DEMO000001.p8"
export HOME="$work/home"
export APNS_KEY_PATH="$work/AuthKey_DEMO000001.p8" APNS_KEY_ID=DEMO000001 APNS_TEAM_ID=TEAMDEMO01 APNS_TOPIC=com.example.Sven
echo "key id $APNS_KEY_ID, team id $APNS_TEAM_ID, topic $APNS_TOPIC (set here by environment variables)"

step "apns-jwt check: every setting, where it came from, what is wrong"
run "$BIN/apns-jwt" check

step "apns-jwt: the provider token, cached for 50 minutes across runs"
token=$("$BIN/apns-jwt")
echo "$token"
[ "$("$BIN/apns-jwt")" = "$token" ] && echo "a second run printed the same token"
run "$BIN/apns-jwt" decode "$token"

step "apns-emulator: a local APNs (Apple is not reachable from here), trusting this key"
"$BIN/apns-emulator" --port 0 --record "$work/received.jsonl" --quiet > "$work/emulator.out" 2>&1 &
emulator_pid=$!
for _ in $(seq 500); do grep -q '^listening on' "$work/emulator.out" 2>/dev/null && break; sleep 0.02; done
line=$(head -n 1 "$work/emulator.out"); echo "$line"
export APNS_PRODUCTION_URL=$(sed 's/^listening on \([^ ]*\) .*/\1/' <<<"$line")
export APNS_CA_FILE=$(sed 's/.*(ca: \(.*\))$/\1/' <<<"$line")
# The emulator also plays FCM (Google's Firebase Cloud Messaging) on the same port, with a
# throw-away service account in place of the one the Firebase console gives.
export FCM_URL=$APNS_PRODUCTION_URL FCM_SERVICE_ACCOUNT=$(dirname "$APNS_CA_FILE")/fcm-service-account.json

step "register-apns: the app hands the server its device token"
run "$BIN/register-apns" iphone-of-ada 7f1c9d2e4b6a8c0e1f3a5b7d9c2e4f6a8b0c1d3e5f7a9b2c4d6e8f0a1b3c5d7e --name "Ada's iPhone"
dead=0d1e2a3d0d1e2a3d0d1e2a3d0d1e2a3d0d1e2a3d0d1e2a3d0d1e2a3d0d1e2a3d
echo '{"device_token": "old-ipad", "apns_token": "'$dead'"}' | "$BIN/register-apns" add --from-json -
pixel="eX4mPl3T0k3n_An-dro1d:APA91bH$(printf 'k3yX9_q-Zw%.0s' $(seq 14))"
run "$BIN/register-apns" add pixel-of-ada "$pixel" --name "Ada's Pixel"
echo "(an Android phone: its FCM registration token is recognized by its shape and sent through FCM)"
run "$BIN/register-apns" list
curl -s --http2 --cacert "$APNS_CA_FILE" -X POST "$APNS_PRODUCTION_URL/emulator/unregister/$dead" > /dev/null
echo "(the emulator now answers 410 Unregistered for the old iPad, as APNs does after an app is deleted)"

step "send-push: what a reply hook runs when the assistant answers (the legacy call, unchanged)"
run "$BIN/send-push" msg-0042 "Your morning briefing is ready: three meetings, rain after four, and the build is green." || true

step "send-push --hook: the same from a hook that must not wait (reply on stdin; returns at once)"
printf '%s\n' "Done: the research summary is in your inbox." | run "$BIN/send-push" --hook msg-0043
echo "(exit $?; the delivery runs in the background and writes its outcome to push.log)"
for _ in $(seq 250); do grep -q msg-0043 "$HOME/.local/state/pushkit-free/push.log" 2>/dev/null && break; sleep 0.02; done
run cat "$HOME/.local/state/pushkit-free/push.log"

step "the dead token was pruned; the live device has its environment and delivery time recorded"
run "$BIN/register-apns" list

step "what the phone would have received (from the emulator's record)"
python3 - "$work/received.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("provider") == "fcm":
        if r.get("kind") == "send":
            message = r.get("message") or {}
            shown = {k: message[k] for k in ("notification", "data") if k in message}
            print(f"{r['status']} FCM (Android): {json.dumps(shown, ensure_ascii=False)}")
        continue
    print(f"{r['status']} {r.get('reason') or 'delivered'}: {json.dumps(r['payload'], ensure_ascii=False)}")
PY

step "a question: register-apns serve asks the phone, the emulator plays the phone and taps Allow"
"$BIN/register-apns" serve --listen 127.0.0.1:0 --no-auth > "$work/serve.out" 2>&1 &
serve_pid=$!
for _ in $(seq 500); do grep -q 'listening on' "$work/serve.out" 2>/dev/null && break; sleep 0.02; done
serve=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/serve.out" | head -n 1)
asked=$(run curl -s "$serve/v1/questions" -d '{"title": "Deploy to production?", "device": "iphone-of-ada", "choices": [{"id": "allow", "title": "Allow"}, {"id": "deny", "title": "Deny", "destructive": true}]}')
printf '%s\n' "$asked"
question=$(tail -n 1 <<<"$asked" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
run curl -s --http2 --cacert "$APNS_CA_FILE" "$APNS_PRODUCTION_URL/emulator/answer" -d '{"choice": "allow"}'
run curl -s "$serve/v1/questions/$question"
echo
echo "what the phone received: the question, then the notice that replaced it (same collapse id)"
for _ in $(seq 250); do [ "$(grep -c "pushkit-q-$question" "$work/received.jsonl")" -ge 2 ] && break; sleep 0.02; done
python3 - "$work/received.jsonl" "pushkit-q-$question" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("collapse_id") == sys.argv[2]:
        print(f"{r['status']} {json.dumps(r['payload'], ensure_ascii=False)}")
PY
