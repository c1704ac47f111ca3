#!/usr/bin/env python3
"""Morning briefing and evening check-in: a line from your own model, pushed to the phone.

    briefing.py due        # from cron every minute: each device's morning briefing at its own time
    briefing.py morning    # or everyone's at once, from cron at 08:00
    briefing.py evening    # at 18:00

`due` sends the morning briefing to the devices whose briefing time has come in their own time
zone and that have not had today's (`send-push --due briefing`; the app sets the time and zone
with the gateway's briefing_config message, or `register-apns briefing DEVICE --time 07:00
--timezone America/New_York`). It asks the model only when some device is due, so running it
every minute costs one send-push dry run a minute. Arguments after `due` go to both send-push
calls (`briefing.py due --now 2030-03-10T11:00:00Z` shows what would happen then).

It asks an OpenAI-compatible chat endpoint (Ollama, llama.cpp's server, vLLM, LM Studio, OpenAI)
for one or two inviting sentences, and pushes them as the OpenClaw notification service's outreach
scheduler does (`send-push --profile openclaw`): "Good Morning ☀️" with category OPENCLAW_BRIEFING,
or "Evening Check-in" with OPENCLAW_MESSAGE, and
    {"type": "start_conversation", "context": "morning_briefing"}   (or "evening_summary")
under "openclaw", so the OpenClaw app opens a new conversation in that context when tapped. When
the endpoint is down, slow or answers something that is not a chat completion, the service's own
fixed text goes out instead: the phone still buzzes at 08:00.

For the Ember app, set BRIEFING_PROFILE=ember-briefing: the morning briefing then goes out as
that app expects it, category BRIEFING with "destination": "briefing" beside aps (the app opens
its briefing when tapped), with the model's line as the body; `evening` keeps OpenClaw's shape.

Settings (environment; cron: lines in the crontab; systemd: Environment= or the EnvironmentFile):
    LLM_BASE_URL   the server, without /v1 (default http://127.0.0.1:11434, Ollama)
    LLM_MODEL      the model (default llama3.2)
    LLM_API_KEY    sent as "Authorization: Bearer ..." when set
    LLM_TIMEOUT    seconds to wait for the model (default 20)
    BRIEFING_PROFILE  openclaw (default) or ember-briefing: whose app reads the morning briefing

Quiet when everything went out, so cron mails only what needs a look: the fallback was used
(standard error says why) or send-push failed (its report follows). Exit: send-push's own status
(0 all delivered or no device registered, 1 some devices failed, 75 only temporary failures,
78 configuration; see `send-push --help`), 64 usage, 69 send-push not on PATH.

Python rather than shell: both directions are JSON (the request must be escaped, the answer parsed
and checked before it reaches a phone), which the standard library does safely; a shell version
needs curl and jq and careful quoting. Only python3 is required, as on any Debian server.
"""
import http.client
import json
import os
import re
import subprocess
import sys
import urllib.request

KINDS = {
    "morning": {
        "title": "Good Morning ☀️",
        "category": "OPENCLAW_BRIEFING",
        "context": "morning_briefing",
        "prompt": "Write the opening line of my morning briefing: one or two short, friendly sentences "
        "that make me want to tap and hear the rest. No greeting emoji, no quotes.",
        "fallback": "Good morning! Ready to start your day?",
    },
    "evening": {
        "title": "Evening Check-in",
        "category": "OPENCLAW_MESSAGE",
        "context": "evening_summary",
        "prompt": "Write one or two short, warm sentences inviting me to check in about how my day went. "
        "No emoji, no quotes.",
        "fallback": "How was your day? I'm here if you'd like to chat.",
    },
}
# A notification shows about two lines on a lock screen; longer answers are cut at a word.
MAX_CHARACTERS = 200


def warn(message):
    print(f"briefing: {message}", file=sys.stderr)


def ask_model(prompt):
    """The model's answer, cleaned; None when the endpoint is unreachable, slow or answers garbage."""
    base = os.environ.get("LLM_BASE_URL") or "http://127.0.0.1:11434"
    base = base.rstrip("/").removesuffix("/v1")
    try:
        timeout = float(os.environ.get("LLM_TIMEOUT") or 20)
    except ValueError:
        warn("LLM_TIMEOUT is not a number of seconds; waiting 20")
        timeout = 20
    headers = {"Content-Type": "application/json"}
    if os.environ.get("LLM_API_KEY"):
        headers["Authorization"] = "Bearer " + os.environ["LLM_API_KEY"]
    request = urllib.request.Request(
        base + "/v1/chat/completions",
        data=json.dumps({
            "model": os.environ.get("LLM_MODEL") or "llama3.2",
            "messages": [
                {"role": "system", "content": "You write the text of phone notifications: plain sentences, nothing else."},
                {"role": "user", "content": prompt},
            ],
            "max_tokens": 120,
            "temperature": 0.7,
        }).encode(),
        headers=headers,
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer = json.load(response)
        text = answer["choices"][0]["message"]["content"]
    except (OSError, http.client.HTTPException) as error:  # refused, timed out, HTTP error status
        warn(f"the model at {base} did not answer ({error}); sending the fallback text")
        return None
    except (ValueError, LookupError, TypeError):  # not JSON, or not a chat completion
        warn(f"the model at {base} answered something that is not a chat completion; sending the fallback text")
        return None
    if not isinstance(text, str):
        warn(f"the model at {base} answered without text; sending the fallback text")
        return None
    text = re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL)  # reasoning models think aloud
    text = " ".join(text.split()).strip("\"'“”")
    if len(text) > MAX_CHARACTERS:
        text = text[:MAX_CHARACTERS].rsplit(" ", 1)[0] + "…"
    if not text:
        warn(f"the model at {base} answered with empty text; sending the fallback text")
        return None
    return text


def send_push(arguments, text=None):
    """Runs send-push; None when it is not on PATH (said on standard error)."""
    try:
        return subprocess.run(
            ["send-push", *arguments], input=text or "", capture_output=True, encoding="utf-8", errors="replace")
    except FileNotFoundError:
        warn("send-push is not on PATH (cron's PATH is only /usr/bin:/bin unless the crontab sets it)")
        return None


def main():
    due = len(sys.argv) >= 2 and sys.argv[1] == "due"
    if not due and (len(sys.argv) != 2 or sys.argv[1] not in KINDS):
        print("usage: briefing.py due [SEND_PUSH_OPTION ...] | morning | evening", file=sys.stderr)
        return 64
    kind = KINDS["morning" if due else sys.argv[1]]
    profile = os.environ.get("BRIEFING_PROFILE") or "openclaw"
    if profile not in ("openclaw", "ember-briefing"):
        print(f"briefing: BRIEFING_PROFILE must be openclaw or ember-briefing, not {profile!r}", file=sys.stderr)
        return 64
    selection = ["--due", "briefing", *sys.argv[2:]] if due else []
    if due:
        # Nobody due (the usual minute): say nothing and leave the model alone.
        probe = send_push([*selection, "--dry-run", "--title", kind["title"], "--body", "(who is due?)"])
        if probe is None:
            return 69
        if probe.returncode != 0:
            sys.stderr.write(probe.stderr)
            return probe.returncode
        if not probe.stdout.strip():
            return 0
    text = ask_model(kind["prompt"]) or kind["fallback"]
    if kind is KINDS["morning"] and profile == "ember-briefing":
        # The profile sets the category (BRIEFING) and "destination": "briefing".
        shape = ["--profile", "ember-briefing"]
    else:
        shape = [
            "--profile", "openclaw", "--category", kind["category"],
            "--data", json.dumps({"type": "start_conversation", "context": kind["context"]}),
        ]
    result = send_push([
        *selection, "--title", kind["title"], "--body", "-", *shape, "--timeout", "60", "--json",
    ], text)
    if result is None:
        return 69
    if result.returncode != 0:
        # send-push's summary and problems, then the devices that did not get it.
        sys.stderr.write(result.stderr)
        for line in result.stdout.splitlines():
            if json.loads(line).get("outcome") != "delivered":
                print(line, file=sys.stderr)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
