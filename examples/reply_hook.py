#!/usr/bin/env python3
"""Buzz the phone when the assistant has stored a reply.

Call notify_reply(message_id, reply) right after store_message(). It replaces the old

    subprocess.run(["send-push", message_id, preview], capture_output=True, timeout=10)

which held the back end for as long as APNs took to answer (up to the 10 seconds). Now
`send-push --hook MESSAGE_ID` reads the reply on standard input, checks the configuration, hands
the delivery to a background process of its own and exits 0, in well under a second. The phone
gets the reply cut to 100 characters plus "...", titled with the config's "title" (else the last
part of the bundle id), badge 1, and "message_id" beside "aps" for the app to open the chat.

What happened to each device is appended to push.log in the state directory
(~/.local/state/pushkit-free/push.log unless PUSHKIT_STATE_DIR or XDG_STATE_HOME say otherwise),
one JSON object per line:
    {"message_id": "m1", "device": "phone", "outcome": "delivered", "status": 200, ...}

notify_reply never raises: a push is a courtesy, the stored reply is what matters.

Try it by hand:  python3 reply_hook.py MESSAGE_ID < reply.txt
"""
import logging
import subprocess
import sys

log = logging.getLogger("reply_hook")

# --hook returns as soon as the background process is started; this only bounds a stuck machine.
HOOK_TIMEOUT_SECONDS = 5


def notify_reply(message_id: str, reply: str) -> None:
    """Starts the push for one stored reply and returns at once. Never raises."""
    try:
        result = subprocess.run(
            # "--" so that a message id starting with "-" is not taken for an option.
            ["send-push", "--hook", "--", message_id],
            input=reply,
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=HOOK_TIMEOUT_SECONDS,
        )
    except FileNotFoundError:
        log.warning("send-push is not on PATH; no push for message %s", message_id)
    except subprocess.TimeoutExpired:
        log.warning("send-push --hook took more than %s s; no push for message %s", HOOK_TIMEOUT_SECONDS, message_id)
    except OSError as error:
        log.warning("cannot run send-push for message %s: %s", message_id, error)
    else:
        # --hook exits 0 for everything but a wrong command line; problems it found (no key, no
        # device) are on its standard error and in push.log.
        if result.returncode != 0 or result.stderr.strip():
            log.warning("send-push --hook (exit %d) for message %s: %s", result.returncode, message_id, result.stderr.strip())


if __name__ == "__main__":
    logging.basicConfig(format="reply_hook: %(message)s")
    if len(sys.argv) != 2:
        print("usage: reply_hook.py MESSAGE_ID < reply.txt", file=sys.stderr)
        sys.exit(64)
    notify_reply(sys.argv[1], sys.stdin.read())
