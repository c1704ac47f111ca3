#!/usr/bin/env bash
# The request each route of `register-apns serve` expects, as an app or another service sends it.
# Every block is one curl you can paste into a shell once BASE, SECRET and the tokens below are
# set; or run the whole file against a running server (it stops at the first error status):
#   BASE=http://127.0.0.1:8100 SECRET_FILE=/etc/pushkit-free/serve.secret bash examples/serve-requests.sh
# It registers three devices, removes two of them again, and sends four notifications
# (8 pushes). The full description of each route is docs/openapi.yaml.
#
# Auth: every route but GET /health needs the secret (GET /metrics too), as
# `Authorization: Bearer <secret>` or `X-OpenClaw-Auth: <secret>`; without it the answer is
# 401 {"error": "..."}. Other refusals are 400 (not JSON, wrong shape), 404 (unknown device or
# route), 413 (body over 4 KiB), 422 (not an APNs token), 429 (over --rate-limit registrations a
# minute; Retry-After says when to retry) and 503 (no provider key configured).
set -euo pipefail

BASE=${BASE:-http://127.0.0.1:8100}
# The secret: $SECRET, else the content of $SECRET_FILE (default: the file the systemd unit uses,
# readable only by the service's user: run as that user, or `SECRET=$(sudo cat FILE)`).
if [ -z "${SECRET:-}" ]; then
    SECRET=$(cat "${SECRET_FILE:-/etc/pushkit-free/serve.secret}")
fi
# curl reads the secret's header from a file (-H @FILE), owner-only: a header given on curl's
# command line would show in `ps` to every user while curl runs. printf is a shell builtin.
HEADERS=$(mktemp -d)
trap 'rm -rf "$HEADERS"' EXIT
printf 'Authorization: Bearer %s\n' "$SECRET" > "$HEADERS/auth"
printf 'X-OpenClaw-Auth: %s\n' "$SECRET" > "$HEADERS/openclaw-auth"
AUTH="@$HEADERS/auth"
OPENCLAW_AUTH="@$HEADERS/openclaw-auth"
JSON="Content-Type: application/json"

# APNs tokens as the app gets them from didRegisterForRemoteNotificationsWithDeviceToken, in hex.
PHONE_TOKEN=${PHONE_TOKEN:-740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad}
IPAD_TOKEN=${IPAD_TOKEN:-038a68bab42615689a5e872771d00e9d51e4e5020c2e5edfa510284f58a93dad}
MAC_TOKEN=${MAC_TOKEN:-dd380a606337851ad8aff57364d5d108319ad843ded7b8c27c2c1a9bbcfde12b}
OLD_PHONE_TOKEN=${OLD_PHONE_TOKEN:-c476b95401189dde1ca3b8f0bfbae71e6bebf91bfd12b3e4ddb5694751b2484c}

# Is it up? No secret needed. -> {"status":"healthy"}
curl -fsS "$BASE/health"

# --- Registration -------------------------------------------------------------------------------

# The app's own device id plus its APNs token: the id stays the same when the token rotates.
# -> {"status":"ok"}
curl -fsS -H "$AUTH" -H "$JSON" --data-binary @- "$BASE/register-apns" <<EOF
{"device_token": "ada-iphone", "apns_token": "$PHONE_TOKEN"}
EOF

# The same with the optional fields, accepted wherever a device is registered: the APNs
# environment of a development build, and groups to send to (send-push --group family).
curl -fsS -H "$AUTH" -H "$JSON" --data-binary @- "$BASE/register-apns" <<EOF
{"device_token": "ada-ipad", "apns_token": "$IPAD_TOKEN", "environment": "sandbox", "groups": ["family"]}
EOF

# The other shape: only the APNs token (as "device_token") and what the app knows about the device.
# Its device id is derived: "apns-" + the first 16 hex digits of sha256 of the token text.
# -> {"status":"registered","device":{"device_id":"apns-…","token":"dd380a60…e12b",...}}
curl -fsS -H "$AUTH" -H "$JSON" --data-binary @- "$BASE/api/v1/devices/register" <<EOF
{"device_token": "$MAC_TOKEN", "device_name": "Ada's MacBook", "device_model": "Mac15,3", "os_version": "15.1", "app_version": "2.4.0"}
EOF

# Webhook style (OpenClaw's ios-device hook), here with the X-OpenClaw-Auth header: register ...
curl -fsS -H "$OPENCLAW_AUTH" -H "$JSON" --data-binary @- "$BASE/hooks/ios-device" <<EOF
{"action": "register", "device_token": "$OLD_PHONE_TOKEN", "device_name": "Old iPhone", "os_version": "17.6"}
EOF
# ... and unregister (by the APNs token, or "apns_token"). -> {"status":"unregistered"}
curl -fsS -H "$OPENCLAW_AUTH" -H "$JSON" --data-binary @- "$BASE/hooks/ios-device" <<EOF
{"action": "unregister", "device_token": "$OLD_PHONE_TOKEN"}
EOF

# A per-agent subscription: the device (id = installation_id) joins the group of the agent that
# works in "cwd" (the agent key is the hex sha256 of cwd); /triggerReplyFinished sends to it.
# -> {"status":"subscribed","agent":"<64 hex>","device_id":"ada-iphone"}
curl -fsS -H "$AUTH" -H "$JSON" --data-binary @- "$BASE/registerSubscription" <<EOF
{"cwd": "/home/ada/projects/sven", "installation_id": "ada-iphone", "apns_token": "$PHONE_TOKEN", "agent_display_name": "Sven"}
EOF

# The Ember gateway's messages, one per request (the same ones the WebSocket GET /gateway/ws
# takes, there without naming the device): the device's daily briefing, at 07:00 in its own zone.
# -> {"type":"ack"}
curl -fsS -H "$AUTH" -H "$JSON" --data-binary @- "$BASE/gateway/messages" <<EOF
{"type": "briefing_config", "device_id": "ada-iphone", "enabled": true, "time": "07:00", "timezone": "Europe/London", "sources": ["calendar", "weather"]}
EOF

# Who is registered (tokens masked). -> {"count":3,"devices":[...]}
curl -fsS -H "$AUTH" "$BASE/api/v1/devices"

# --- Sending (each device's outcome is in the answer; 410 Unregistered devices are removed) ------

# To every device. All fields are optional, but there must be a title or a body; "data" goes
# beside "aps" in the payload. -> {"sent":3,"results":[{"device_id":...,"success":true,...},...]}
curl -fsS -H "$AUTH" -H "$JSON" --data-binary @- "$BASE/api/v1/notifications/send" <<EOF
{"title": "Build finished", "subtitle": "main", "body": "All 312 tests passed.", "category": "BUILD", "badge": 1, "data": {"build_id": "312"}}
EOF

# To one device, by its APNs token (or its device id). -> {"success":true,"apns_id":"…","reason":null}
curl -fsS -H "$AUTH" -H "$JSON" --data-binary @- "$BASE/api/v1/notifications/send/$PHONE_TOKEN" <<EOF
{"title": "Just for your iPhone", "body": "Sent to one device."}
EOF

# Webhook style (OpenClaw's ios-notify hook): "message" may stand for "body".
# -> {"status":"sent","devices_notified":3}
curl -fsS -H "$OPENCLAW_AUTH" -H "$JSON" --data-binary @- "$BASE/hooks/ios-notify" <<EOF
{"title": "Reminder", "message": "Stand-up in 5 minutes."}
EOF

# An agent's reply is ready: to the devices subscribed to the agent of "cwd", titled with its
# display name, the preview as the body; a newer reply replaces the older banner.
# -> {"status":"sent","agent":"<64 hex>","devices_notified":1}
curl -fsS -H "$AUTH" -H "$JSON" --data-binary @- "$BASE/triggerReplyFinished" <<EOF
{"cwd": "/home/ada/projects/sven", "conversation_id": "c-42", "message_preview": "Here is the plan for tomorrow: three meetings and the dentist at four.", "finished_at": "2026-11-23T12:00:00Z"}
EOF

# --- Operations -------------------------------------------------------------------------------

# Prometheus metrics: registrations, sends by outcome, prunes, request latency (its histogram
# buckets left out here). No secret is needed on a loopback address; sending it does no harm.
curl -fsS -H "$AUTH" "$BASE/metrics" | grep -v '_bucket{'

# Remove a device, by its APNs token or its device id. -> {"status":"unregistered"}; 404 unknown
curl -fsS -H "$AUTH" -X DELETE "$BASE/api/v1/devices/$MAC_TOKEN"
