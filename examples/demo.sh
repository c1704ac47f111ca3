#!/usr/bin/env bash
# `make demo`: the main job of the toolbox, offline, with a throw-away key and state directory.
# Usage: examples/demo.sh BIN_DIR
set -euo pipefail
BIN=${1:?usage: examples/demo.sh BIN_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "a throw-away APNs key (a real one is the .p8 from the Apple developer account)"
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$work/AuthKey_DEMO000001.p8"
chmod 600 "$work/AuthKey_DEMO000001.p8"
export HOME="$work/home"
export APNS_KEY_PATH="$work/AuthKey_DEMO000001.p8" APNS_KEY_ID=DEMO000001 APNS_TEAM_ID=TEAMDEMO01 APNS_TOPIC=com.example.demo
echo "key: $APNS_KEY_PATH  key id: $APNS_KEY_ID  team id: $APNS_TEAM_ID  topic: $APNS_TOPIC"

step "apns-jwt check: every setting, where it came from, what is wrong"
"$BIN/apns-jwt" check

step "apns-jwt: a provider token (cached for 50 minutes)"
token=$("$BIN/apns-jwt")
echo "$token"

step "a second run reuses it (APNs throttles new tokens within 20 minutes)"
[ "$("$BIN/apns-jwt")" = "$token" ] && echo "same token: yes"

step "apns-jwt decode"
"$BIN/apns-jwt" decode "$token"
