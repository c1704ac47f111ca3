#!/bin/sh
# A reminder in N minutes: remind-in.sh MINUTES TEXT [SEND-PUSH-OPTION...]
#   remind-in.sh 25 "Take the bread out of the oven"
# pushes "Reminder" / TEXT to every registered device MINUTES minutes from now. Options after TEXT
# go to send-push as they are (`--profile openclaw --category OPENCLAW_REMINDER`, `--sound none`,
# a device id is not one: name devices with `--device ID`); examples/openclaw_events.py uses them.
#
# Why not `(sleep 1500; send-push ...) &`? A sleeping process is lost, without a word, to a reboot,
# to the end of your login session (systemd kills its processes unless lingering is on), to the
# OOM killer, or to whoever restarts the service that started it. So the reminder is handed to a
# scheduler that outlives the caller:
# - systemd-run --user: a transient timer in your user manager. It survives the caller and the end
#   of the session (with `loginctl enable-linger`), but not a reboot. See it with
#   `systemctl --user list-timers`, cancel it with `systemctl --user stop run-….timer`, read what
#   happened with `journalctl --user -u run-….service`.
# - at, where there is no systemd user manager (containers, servers without one): the job is kept
#   on disk in /var/spool and also survives a reboot; atd must be running. `atq` lists it,
#   `atrm N` cancels it, and its output is mailed to you.
#
# The configuration is checked now (apns-jwt check), and so are the send-push options (a dry run
# of the same command), not in MINUTES minutes when nobody watches.
# Exit: 0 scheduled, 64 usage, 69 no scheduler or the tools not on PATH, 78 configuration, else
# the dry run's status (send-push refused the options) or the scheduler's.
set -eu

usage() { echo "usage: remind-in.sh MINUTES TEXT [SEND-PUSH-OPTION...]" >&2; exit 64; }
[ $# -ge 2 ] || usage
minutes=$1
text=$2
shift 2
case $minutes in '' | *[!0-9]*) usage ;; esac
[ "$minutes" -ge 1 ] || usage
[ -n "$text" ] || usage
# What follows TEXT are options: a stray word is a mistake (a quoted TEXT split in two), not data.
case ${1-} in '' | -*) ;; *) usage ;; esac

# The scheduler runs the command later, with another PATH: name send-push by its full path.
send_push=$(command -v send-push) && command -v apns-jwt >/dev/null ||
  { echo "remind-in.sh: send-push and apns-jwt must be on PATH" >&2; exit 69; }
report=$(apns-jwt check 2>&1) || { printf '%s\n' "$report" >&2; exit 78; }
status=0
report=$("$send_push" --dry-run --title Reminder --body "$text" "$@" 2>&1 >/dev/null) || status=$?
[ "$status" -eq 0 ] || { printf '%s\n' "$report" >&2; exit "$status"; }

if command -v systemd-run >/dev/null 2>&1 && systemctl --user show-environment >/dev/null 2>&1; then
  # The unit runs in the user manager's environment, not this one: pass on the settings that
  # choose the configuration (each --setenv=NAME takes NAME's value from here).
  # Names only (letters, digits, _), so the list splits into words safely.
  setenv=""
  for name in $(env | sed -n -E 's/^(APNS_[A-Za-z0-9_]*|PUSHKIT_[A-Za-z0-9_]*|XDG_CONFIG_HOME|XDG_CONFIG_DIRS|XDG_STATE_HOME)=.*/\1/p'); do
    setenv="$setenv --setenv=$name"
  done
  # AccuracySec=1s: timers may otherwise fire up to a minute late, to batch wake-ups.
  # shellcheck disable=SC2086
  exec systemd-run --user --on-active="${minutes}m" --timer-property=AccuracySec=1s $setenv \
    -- "$send_push" --title Reminder --body "$text" --timeout 60 "$@"
elif command -v at >/dev/null 2>&1; then
  # at runs the job with /bin/sh and the environment of this moment. Single quotes keep TEXT as it
  # is ($, backquotes, double quotes); a single quote inside becomes '\''.
  quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
  options=""
  for option in "$@"; do options="$options $(quote "$option")"; done
  printf '%s --title Reminder --body %s --timeout 60%s\n' "$(quote "$send_push")" "$(quote "$text")" "$options" \
    | at now + "$minutes" minutes
else
  echo "remind-in.sh: neither a systemd user manager (systemd-run --user) nor at is available" >&2
  exit 69
fi
