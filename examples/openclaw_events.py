#!/usr/bin/env python3
"""The OpenClaw service's event notifications, from a shell, a task runner or cron.

    openclaw_events.py task-complete TASK RESULT      # "Task Complete": "TASK: RESULT"
    openclaw_events.py reminder MESSAGE               # "Reminder", now
    openclaw_events.py reminder --in MINUTES MESSAGE  # later (examples/remind-in.sh schedules it)
    openclaw_events.py proactive MESSAGE              # "OpenClaw": the assistant reaching out

Each goes to every registered device as the OpenClaw notification service's outreach scheduler
sends it, through `send-push --profile openclaw` (category, thread id `openclaw`, sound,
`mutable-content`, `apns-expiration: 0`, custom data under "openclaw"):

    task-complete  OPENCLAW_ALERT     {"type": "show_message", "message": RESULT}
                   body "TASK: " and RESULT's first 100 characters; a tap shows the whole RESULT
    reminder       OPENCLAW_REMINDER  {"type": "start_conversation", "context": "reminder"}
    proactive      OPENCLAW_MESSAGE   {"type": "start_conversation", "context": "ai_initiated"}

RESULT or MESSAGE `-` is read from standard input (`make train | tail -3 | openclaw_events.py
task-complete train -`). A RESULT too large for APNs' 4 KB payload is refused by send-push (65):
APNs would refuse it too. The service's `send_reminder(message, delay_minutes)` keeps a delayed
reminder in its process, lost on a restart; `--in` hands it to systemd or at instead.

Exit: send-push's status (0 delivered or no device registered; see `send-push --help`), or
remind-in.sh's for `--in`; 64 usage; 69 send-push not on PATH.
"""
import json
import os
import subprocess
import sys

KINDS = {
    "task-complete": {"title": "Task Complete", "category": "OPENCLAW_ALERT"},
    "reminder": {"title": "Reminder", "category": "OPENCLAW_REMINDER",
                 "data": {"type": "start_conversation", "context": "reminder"}},
    "proactive": {"title": "OpenClaw", "category": "OPENCLAW_MESSAGE",
                  "data": {"type": "start_conversation", "context": "ai_initiated"}},
}
USAGE = """usage: openclaw_events.py task-complete TASK RESULT
       openclaw_events.py reminder [--in MINUTES] MESSAGE
       openclaw_events.py proactive MESSAGE
(RESULT or MESSAGE - reads standard input)"""


def usage(problem):
    print(f"openclaw_events: {problem}\n{USAGE}", file=sys.stderr)
    sys.exit(64)


def text_argument(value, name):
    """The argument, or standard input for `-`; never empty."""
    text = sys.stdin.read().rstrip("\n") if value == "-" else value
    if not text.strip():
        usage(f"{name} is empty")
    return text


def parse(arguments):
    """(kind, minutes or None, body, data) from the command line; exits 64 on a mistake."""
    if not arguments or arguments[0] not in KINDS:
        usage("the first argument is task-complete, reminder or proactive")
    kind, rest = arguments[0], arguments[1:]
    minutes = None
    if kind == "reminder" and rest[:1] == ["--in"]:
        if len(rest) < 2 or not rest[1].isdigit() or int(rest[1]) < 1:
            usage("--in takes a whole number of minutes, 1 or more")
        minutes, rest = int(rest[1]), rest[2:]
    if kind == "task-complete":
        if len(rest) != 2:
            usage("task-complete takes TASK and RESULT")
        task = text_argument(rest[0], "TASK")
        result = text_argument(rest[1], "RESULT")
        # As the service's notify_task_complete: f"{task_name}: {result[:100]}".
        return kind, None, f"{task}: {result[:100]}", {"type": "show_message", "message": result}
    if len(rest) != 1:
        usage(f"{kind} takes one MESSAGE")
    return kind, minutes, text_argument(rest[0], "MESSAGE"), KINDS[kind]["data"]


def main():
    kind, minutes, body, data = parse(sys.argv[1:])
    options = ["--profile", "openclaw", "--category", KINDS[kind]["category"], "--data", json.dumps(data)]
    if minutes is not None:
        # remind-in.sh sends the title "Reminder" itself and checks everything now.
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "remind-in.sh")
        command = [script, str(minutes), body] + options
        body_input = None
    else:
        command = ["send-push", "--title", KINDS[kind]["title"], "--body", "-"] + options
        body_input = body
    try:
        sys.exit(subprocess.run(command, input=body_input, encoding="utf-8").returncode)
    except FileNotFoundError:
        print(f"openclaw_events: {command[0]} is not installed (send-push must be on PATH)", file=sys.stderr)
        sys.exit(69)


if __name__ == "__main__":
    main()
