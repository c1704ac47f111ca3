#!/usr/bin/env bash
# Show a long task (a build, a research run) on the phone as a Live Activity: start it, report
# progress three times, then end it and let it leave the Lock Screen a while later.
#
# Usage: live-activity.sh UPDATE_TOKEN [START_TOKEN]
#   UPDATE_TOKEN  the activity's update token. The app gets it from the activity's
#                 `pushTokenUpdates` and sends it to your server: for an activity started by push,
#                 once iOS has started it and woken the app (read it from wherever your server
#                 stores it, just before the first update).
#   START_TOKEN   a push-to-start token to start the activity with. Without it the start goes to
#                 the push-to-start token of every registered device
#                 (`register-apns add ID TOKEN --push-to-start-token HEX`); add `--device ID` or
#                 `--group G` to SEND_ARGS to narrow that.
#
# Environment:
#   PUSHKIT_BIN      directory of send-push (default: the one on PATH)
#   ATTRIBUTES_TYPE  the name of the app's ActivityAttributes type (default: TaskAttributes)
#   TASK_NAME        shown by the activity (default: build); no quotes or backslashes
#   STEP_SECONDS     how long each stand-in step takes (default: 5); replace run_step with real work
#   SEND_ARGS        extra send-push flags for every push, e.g. "--sandbox" or "--device my-phone"
#   APNS_*, APNS_CA_FILE, PUSHKIT_CONFIG: the usual send-push settings
#
# A push that fails is reported on stderr and the task goes on: the task's outcome is what counts.
# The script exits with the task's status.
set -uo pipefail
update_token=${1:?usage: live-activity.sh UPDATE_TOKEN [START_TOKEN]}
start_token=${2:-}
send_push=${PUSHKIT_BIN:+$PUSHKIT_BIN/}send-push
attributes_type=${ATTRIBUTES_TYPE:-TaskAttributes}
task_name=${TASK_NAME:-build}
read -r -a send_args <<<"${SEND_ARGS:-}"

push() {
  "$send_push" "${send_args[@]}" "$@" || echo "live-activity.sh: send-push exited $? (the task goes on)" >&2
}

# content_state STEP PROGRESS: the JSON the app's ContentState decodes.
content_state() { printf '{"step":"%s","progress":%s}' "$1" "$2"; }

run_step() { sleep "${STEP_SECONDS:-5}"; } # your task's real work goes here

steps=("fetch" "compile" "test")
progress=("0.33" "0.67" "1.0")

start_target=()
[ -n "$start_token" ] && start_target=(--token "$start_token")
push --live-activity start "${start_target[@]}" \
  --attributes-type "$attributes_type" --attributes "{\"name\":\"$task_name\"}" \
  --content-state "$(content_state starting 0)" \
  --title "$task_name" --body "started"

status=0
reached=0
for index in "${!steps[@]}"; do
  step=${steps[$index]}
  run_step "$step" || { status=$?; break; }
  reached=${progress[$index]}
  push --live-activity update --token "$update_token" \
    --content-state "$(content_state "$step" "$reached")" \
    --stale-date $(( $(date +%s) + 600 ))
done

if [ "$status" -eq 0 ]; then outcome=done; else outcome=failed; fi
push --live-activity end --token "$update_token" \
  --content-state "$(content_state "$outcome" "$reached")" \
  --dismissal-date $(( $(date +%s) + 900 )) \
  --title "$task_name" --body "$outcome"
exit "$status"
