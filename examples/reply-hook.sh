#!/bin/sh
# The reply hook for back ends that run a command after they store a reply:
#   reply-hook.sh MESSAGE_ID < reply.txt
# It is now a thin wrapper: `send-push --hook` reads the reply on standard input, checks the
# configuration, hands the delivery to a background process and exits 0 at once, so the back end
# is never held up by APNs. The phone gets the reply cut to 100 characters plus "...", badge 1 and
# "message_id" beside "aps". Each device's outcome is appended to push.log in the state directory
# (~/.local/state/pushkit-free/push.log by default), one JSON object per line.
#
# Exit: 0 (also when something went wrong after the command line was read: that goes to standard
# error and push.log, never to your back end), 64 wrong usage, 69 send-push not on PATH.
if [ $# -ne 1 ]; then
  echo "usage: reply-hook.sh MESSAGE_ID < reply" >&2
  exit 64
fi
if ! command -v send-push >/dev/null 2>&1; then
  echo "reply-hook.sh: send-push is not on PATH; no push for message $1" >&2
  exit 69
fi
# "--" so that a message id starting with "-" is not taken for an option.
exec send-push --hook -- "$1"
