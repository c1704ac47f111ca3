#!/usr/bin/env python3
"""send_notification: a tool your agent can call to buzz your phone (OpenAI-style function calling).

Give the model TOOL in the request's "tools" list. When it answers with a tool call named
"send_notification", pass the call's "arguments" (a JSON string) to handle_tool_call() and send
the returned string back as the tool message:

    reply = client.chat.completions.create(model=..., messages=messages, tools=[agent_tool.TOOL])
    for call in reply.choices[0].message.tool_calls or []:
        if call.function.name == "send_notification":
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": agent_tool.handle_tool_call(call.function.arguments)})

Foreground, not `send-push --hook`: the model should learn whether the phone was reached
({"success": true, "devices_notified": 2}) so it can say so, or try something else. --hook hands
the delivery to a background process and always exits 0 with nothing printed, so it cannot tell.
A tool call may take a few seconds, so this waits for `send-push --json` (at most 10 s) and counts
the devices whose outcome is "delivered". The reply hook (reply_hook.py) is the opposite case: the
back end must not wait there, and nobody reads the answer.

It sends what the OpenClaw design's tool handler sends (`send-push --profile openclaw`): category
OPENCLAW_ALERT for urgency high, else OPENCLAW_MESSAGE, and {"type": "start_conversation",
"context": "ai_initiated"} under "openclaw", so the OpenClaw app opens a conversation when tapped.
urgency is optional (default normal), as there; low and high also set the interruption level
(send-push --urgency): low = passive (no sound, no lighting up), high = time-sensitive (breaks
through Focus, if the user allows). normal sends exactly what the design sends (iOS's default
level, active). With no device registered the answer is
{"success": true, "devices_notified": 0}, as the design's, with a "note" saying so.
"""
import json
import subprocess
import sys

URGENCIES = ["low", "normal", "high"]

TOOL = {
    "type": "function",
    "function": {
        "name": "send_notification",
        "description": "Send a push notification to the user's phone. Use it when the user asked to be told "
        "about something, or when a long task they are waiting for is done. Keep it short.",
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "A few words, shown in bold."},
                "message": {"type": "string", "description": "The notification text, one or two sentences."},
                "urgency": {
                    "type": "string",
                    "enum": URGENCIES,
                    "description": "low: silent; normal: the usual sound; high: time-sensitive, breaks through Focus. "
                    "Use high only for what cannot wait.",
                },
            },
            "required": ["title", "message"],
            "additionalProperties": False,
        },
    },
}

SEND_TIMEOUT_SECONDS = 10
# As the OpenClaw design's handle_send_notification: the category by urgency, and the data its app reads.
CATEGORIES = {"low": "OPENCLAW_MESSAGE", "normal": "OPENCLAW_MESSAGE", "high": "OPENCLAW_ALERT"}
DATA = {"type": "start_conversation", "context": "ai_initiated"}


def send_notification(title, message, urgency="normal"):
    """Sends the notification to every registered device and says how many got it.

    Returns {"success": True, "devices_notified": N} (plus "devices_failed" when some did not get
    it, and a "note" when no device is registered), or {"success": False, "error": "..."}. Never
    raises.
    """
    if not isinstance(title, str) or not title.strip():
        return {"success": False, "error": "title must be a non-empty string"}
    if not isinstance(message, str) or not message.strip():
        return {"success": False, "error": "message must be a non-empty string"}
    if urgency not in URGENCIES:
        return {"success": False, "error": f"urgency must be one of {', '.join(URGENCIES)}"}
    command = [
        "send-push", "--title", title, "--body", "-",
        "--profile", "openclaw", "--category", CATEGORIES[urgency], "--data", json.dumps(DATA),
        "--json", "--timeout", str(SEND_TIMEOUT_SECONDS), "--require-device",
    ] + ([] if urgency == "normal" else ["--urgency", urgency])
    try:
        result = subprocess.run(
            command, input=message, capture_output=True, encoding="utf-8", errors="replace",
            timeout=SEND_TIMEOUT_SECONDS + 5,
        )
    except FileNotFoundError:
        return {"success": False, "error": "send-push is not installed on the server"}
    except subprocess.TimeoutExpired:
        return {"success": False, "error": f"no answer from send-push within {SEND_TIMEOUT_SECONDS + 5} s"}
    except OSError as error:
        return {"success": False, "error": f"cannot run send-push: {error}"}

    outcomes = []
    for line in result.stdout.splitlines():
        try:
            outcomes.append(json.loads(line))
        except ValueError:
            pass
    delivered = sum(1 for outcome in outcomes if outcome.get("outcome") == "delivered")
    if delivered:
        answer = {"success": True, "devices_notified": delivered}
        if len(outcomes) > delivered:
            answer["devices_failed"] = len(outcomes) - delivered
        return answer
    if result.returncode == 66:
        return {"success": True, "devices_notified": 0, "note": "no device is registered to receive notifications"}
    # Why nothing went out: a device's reason (quiet hours, frequency cap, APNs' answer) or the
    # last line send-push wrote to standard error (configuration, unreachable APNs).
    reasons = [o.get("reason") or o.get("outcome") for o in outcomes]
    problem = next((r for r in reasons if r), None) or (result.stderr.strip().splitlines() or ["unknown error"])[-1]
    return {"success": False, "error": problem.removeprefix("send-push: ")}


def handle_tool_call(arguments):
    """Runs one send_notification call from its JSON arguments; returns the JSON for the tool message."""
    try:
        parsed = json.loads(arguments)
    except (TypeError, ValueError):
        return json.dumps({"success": False, "error": "the arguments are not JSON"})
    if not isinstance(parsed, dict):
        return json.dumps({"success": False, "error": "the arguments must be a JSON object"})
    return json.dumps(send_notification(parsed.get("title"), parsed.get("message"), parsed.get("urgency", "normal")))


if __name__ == "__main__":
    # python3 agent_tool.py                prints TOOL, the definition to give the model
    # python3 agent_tool.py ARGUMENTS_JSON  one call, e.g. '{"title": "Build", "message": "All green", "urgency": "low"}'
    if len(sys.argv) == 1:
        print(json.dumps(TOOL, indent=2))
        sys.exit(0)
    answer = handle_tool_call(sys.argv[1])
    print(answer)
    sys.exit(0 if json.loads(answer)["success"] else 1)
