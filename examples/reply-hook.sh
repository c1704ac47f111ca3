#!/usr/bin/env bash
# A hook your assistant back end runs after it stores a reply: buzz the phone, never block or break
# the caller. Usage (from the back end): reply-hook.sh MESSAGE_ID < reply.txt
#
# - The preview is the first 100 characters of the reply (send-push's legacy form cuts it).
# - send-push runs in the background with a hard time limit, so a slow network never delays the
#   reply; its one-line-per-device result goes to the log.
# - Exit codes worth a look in the log: 1 some devices failed, 69 APNs unreachable, 75 only
#   temporary failures (try again later), 78 configuration (run `apns-jwt check`).
set -u
message_id=${1:?usage: reply-hook.sh MESSAGE_ID < reply}
preview=$(head -c 400)
log=${XDG_STATE_HOME:-$HOME/.local/state}/pushkit-free/reply-hook.log
mkdir -p "$(dirname "$log")"
(
  send-push --timeout 20 "$message_id" "$preview" >> "$log" 2>&1
  status=$?
  [ "$status" -eq 0 ] || echo "$(date -Is) send-push exited $status for $message_id" >> "$log"
) </dev/null &
exit 0
