#!/usr/bin/env python3
"""Register a device from your server's request handler: the app POSTs its token, this stores it.

The request body goes unchanged to `register-apns add --from-json -`, which validates it and
stores the device in one locked, atomic update (a bad body changes nothing on disk). Bodies:
    {"device_token": "<the app's device id>", "apns_token": "<hex APNs token>"}
    {"device_token": "<hex APNs token>", "device_name": "Ada's iPhone"}      (the older app shape)
register-apns's exit status becomes the HTTP status: 0 -> 200, 65 (bad body) -> 400, anything
else -> 500 (our side: the state file, the disk). Neither answers nor logs ever contain the token:
a push token lets anyone with your key reach that phone.

In your own web framework, call handle_registration(body) from the route and send back what it
returns. Flask, for instance:
    @app.post("/register")
    def register():
        status, answer = handle_registration(request.get_data())
        return answer, status

Or run this file as a small server for the app to talk to (put it behind your TLS reverse proxy):
    python3 register_handler.py [--host 127.0.0.1] [--port 8787]      # POST /register
"""
import argparse
import json
import re
import subprocess
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY_BYTES = 16 * 1024
STATUS_FOR_EXIT = {0: 200, 65: 400}


def masked(text):
    """Text with every long run of hex digits (a token) cut to its first 8 digits."""
    return re.sub(r"\b([0-9a-fA-F]{8})[0-9a-fA-F]{8,}\b", r"\1…", text)


def handle_registration(body):
    """(HTTP status, JSON-ready answer) for one registration body (bytes)."""
    if not body.strip():
        return 400, {"registered": False, "error": "empty body"}
    if len(body) > MAX_BODY_BYTES:
        return 413, {"registered": False, "error": "body too large"}
    try:
        result = subprocess.run(["register-apns", "add", "--from-json", "-"], input=body, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as error:
        print(f"register_handler: cannot run register-apns: {error}", file=sys.stderr)
        return 500, {"registered": False, "error": "registration is unavailable"}
    status = STATUS_FOR_EXIT.get(result.returncode, 500)
    if status == 200:
        return 200, {"registered": True}
    # register-apns names what is wrong (it masks tokens itself; masked() is belt and braces).
    problem = masked(result.stderr.decode("utf-8", "replace").strip()).removeprefix("register-apns: ")
    problem = problem.replace("registration body in standard input", "registration body")
    print(f"register_handler: register-apns exit {result.returncode}: {problem}", file=sys.stderr)
    if status == 400:
        return 400, {"registered": False, "error": problem}
    return 500, {"registered": False, "error": "registration failed on the server"}


class RegistrationHandler(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.path != "/register":
            return self.answer(404, {"error": "not found"})
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            return self.answer(413, {"registered": False, "error": "body too large"})
        self.answer(*handle_registration(self.rfile.read(length)))

    def answer(self, status, document):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):  # the request line only: no bodies, no tokens
        print(f"register_handler: {self.address_string()} {format % args}", file=sys.stderr)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="POST /register: store an app's APNs token with register-apns.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8787, help="0 picks a free port (printed)")
    try:
        options = parser.parse_args()
    except SystemExit as exit:  # argparse exits 2 on bad usage; the tools' convention is 64
        sys.exit(64 if exit.code == 2 else exit.code)
    server = ThreadingHTTPServer((options.host, options.port), RegistrationHandler)
    print(f"listening on http://{options.host}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
