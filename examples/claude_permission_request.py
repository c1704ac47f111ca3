#!/usr/bin/env python3
"""Answer an agent's permission prompts from the phone: a PermissionRequest hook.

Claude Code (and Codex, which uses the same hook contract) runs this when it is about to ask
"may I run this?". The hook asks the phone instead, through ask-push:

    Allow Bash: git push --force origin main?        [Allow] [Deny]

and prints the decision the agent reads on standard output:

    {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}

Deny prints "behavior": "deny" with a message. When nobody answers in time, the question is
cancelled, ask-push fails, or the input is not a permission request, it prints nothing and exits 0:
the agent then asks in the terminal as it would without the hook. Nothing here turns silence
into "allow".

Install (docs/hooks-and-cron.md): copy it to ~/.claude/hooks/, and in ~/.claude/settings.json

    {"hooks": {"PermissionRequest": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "python3 ~/.claude/hooks/claude_permission_request.py",
         "timeout": 330}]}]}}

ask-push reads the endpoint and its secret from the config file (endpoint, endpoint_secret_file)
or PUSHKIT_ENDPOINT and PUSHKIT_ENDPOINT_SECRET_FILE. PUSHKIT_ASK_TIMEOUT sets how long the phone
may take (seconds, 300 by default); keep the hook's "timeout" above it. PUSHKIT_ASK_DEVICE or
PUSHKIT_ASK_GROUP asks one device or group only.

Try it by hand:  python3 claude_permission_request.py < hook-input.json
"""
import json
import os
import signal
import subprocess
import sys

# The longest a title is shown in full on a lock screen is about this; the rest goes in the body.
TITLE_LIMIT = 100
BODY_LIMIT = 400


def shorten(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def what_is_asked(tool: str, tool_input: dict) -> str:
    """The part of the tool's input a person decides on: the command, the file, the URL."""
    for key in ("command", "file_path", "url", "path", "pattern", "query"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return json.dumps(tool_input, ensure_ascii=False, sort_keys=True) if tool_input else ""


def question(event: dict) -> tuple[str, str]:
    """The question's title and body for one permission request."""
    tool = str(event.get("tool_name") or "a tool")
    tool_input = event.get("tool_input") if isinstance(event.get("tool_input"), dict) else {}
    asked = what_is_asked(tool, tool_input)
    title = shorten(f"Allow {tool}: {asked}?" if asked else f"Allow {tool}?", TITLE_LIMIT)
    lines = []
    description = tool_input.get("description")
    if isinstance(description, str) and description:
        lines.append(description)
    if asked and len(f"Allow {tool}: {asked}?") > TITLE_LIMIT:
        lines.append(asked)
    if isinstance(event.get("cwd"), str):
        lines.append(f"in {event['cwd']}")
    return title, shorten(" · ".join(lines), BODY_LIMIT)


def ask(title: str, body: str) -> str | None:
    """Runs ask-push; the choice's id, or None when there is no answer to act on."""
    command = [
        os.environ.get("ASK_PUSH", "ask-push"),
        "--title", title,
        "--choice", "allow=Allow",
        "--choice", "deny=Deny",
        "--destructive", "deny",
        "--timeout", os.environ.get("PUSHKIT_ASK_TIMEOUT", "300"),
    ]
    if body:
        command += ["--body", body]
    if os.environ.get("PUSHKIT_ASK_DEVICE"):
        command += ["--device", os.environ["PUSHKIT_ASK_DEVICE"]]
    elif os.environ.get("PUSHKIT_ASK_GROUP"):
        command += ["--group", os.environ["PUSHKIT_ASK_GROUP"]]
    try:
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, encoding="utf-8")
    except OSError as error:
        print(f"claude_permission_request: cannot run ask-push: {error}", file=sys.stderr)
        return None

    # When the agent gives up on the hook (its timeout) or is stopped, pass the signal on: ask-push
    # then cancels the question, so no button is left on the phone that no longer matters.
    def forward(number, _frame):
        child.send_signal(number)

    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, forward)
    output, _ = child.communicate()
    if child.returncode != 0:
        return None  # 2 expired, 3 cancelled, anything else a failure: the terminal decides
    return output.strip()


def main() -> int:
    try:
        event = json.load(sys.stdin)
    except (ValueError, UnicodeDecodeError):
        return 0
    if not isinstance(event, dict) or event.get("hook_event_name") != "PermissionRequest":
        return 0
    answer = ask(*question(event))
    if answer == "allow":
        decision = {"behavior": "allow"}
    elif answer == "deny":
        decision = {"behavior": "deny", "message": "Denied from the phone"}
    else:
        return 0
    json.dump({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
