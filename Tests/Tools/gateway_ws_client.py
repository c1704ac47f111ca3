#!/usr/bin/env python3
"""A WebSocket client nobody here wrote (websockets, from PyPI) speaking the Ember gateway's messages
to `register-apns serve`'s /gateway/ws, for Tests/EndToEndTests/GatewayWebSocketEndToEndTests.swift.

usage: gateway_ws_client.py URL [--header 'Name: value']... [--cafile PEM] < plan.json

A wss:// URL is verified against --cafile (the server's self-signed certificate in the tests).

The plan is {"steps": [...]}; each step acts on a named connection ("on", default "a"), opened by
its first step, and prints one JSON line:
  {"on": "a", "send": {...}}         sends the object as a text message, prints {"on", "reply"}
  {"on": "a", "post": {...}}         sends the object and awaits no reply, prints {"on", "sent": true}
  {"on": "a", "text": "..."}         sends the text as it is (not JSON, say), prints {"on", "reply"}
  {"on": "a", "binary": "..."}       sends the UTF-8 bytes as a binary message, prints {"on", "reply"}
  {"on": "a", "receive": true}       prints the next message the server sends, {"on", "reply"}
  {"on": "a", "closed": true}        waits for the server to close, prints {"on", "code", "reason"}
  {"on": "a", "close": true}         closes the connection normally, prints {"on", "closed": true}
A handshake the server refuses prints {"on", "status", "body"}; a connection the server closes while a
reply is awaited prints {"on", "code", "reason"}.
"""

import contextlib
import json
import ssl
import sys

from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

TIMEOUT = 15


def main():
    url = sys.argv[1]
    headers = {}
    tls = None
    arguments = sys.argv[2:]
    while arguments:
        flag, value = arguments[0], arguments[1]
        arguments = arguments[2:]
        if flag == "--header":
            name, _, text = value.partition(":")
            headers[name.strip()] = text.strip()
        elif flag == "--cafile":
            tls = ssl.create_default_context(cafile=value)
        else:
            sys.exit(f"unknown option {flag}")

    plan = json.load(sys.stdin)
    with contextlib.ExitStack() as stack:
        run(plan, url, headers, tls, stack)


def run(plan, url, headers, tls, stack):
    """Runs the plan's steps; `stack` closes every connection opened at the end."""
    connections = {}
    for step in plan["steps"]:
        name = step.get("on", "a")
        line = {"on": name}
        try:
            if name not in connections:
                connections[name] = stack.enter_context(
                    connect(url, additional_headers=headers, open_timeout=TIMEOUT, ssl=tls))
            socket = connections[name]
            if "send" in step:
                socket.send(json.dumps(step["send"]))
                line["reply"] = json.loads(socket.recv(timeout=TIMEOUT))
            elif "post" in step:
                socket.send(json.dumps(step["post"]))
                line["sent"] = True
            elif "text" in step:
                socket.send(step["text"])
                line["reply"] = json.loads(socket.recv(timeout=TIMEOUT))
            elif "binary" in step:
                socket.send(step["binary"].encode())
                line["reply"] = json.loads(socket.recv(timeout=TIMEOUT))
            elif step.get("receive"):
                line["reply"] = json.loads(socket.recv(timeout=TIMEOUT))
            elif step.get("closed"):
                socket.recv(timeout=TIMEOUT)
                line["unexpected"] = "a message instead of the close"
            elif step.get("close"):
                socket.close()
                line["closed"] = True
        except InvalidStatus as refusal:
            line["status"] = refusal.response.status_code
            line["body"] = refusal.response.body.decode("utf-8", "replace")
        except ConnectionClosed as closed:
            line["code"] = closed.rcvd.code if closed.rcvd else None
            line["reason"] = closed.rcvd.reason if closed.rcvd else None
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
