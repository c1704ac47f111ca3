#!/usr/bin/env python3
"""A hostile WebSocket client for `register-apns serve`'s /gateway/ws, written on a plain socket
(no WebSocket library would send this), for Tests/EndToEndTests/GatewayWebSocketEndToEndTests.swift.

usage: ws_fragment_flood.py PORT FRAMES [--header 'Name: value']...

It upgrades GET /gateway/ws, sends one text frame without FIN, then up to FRAMES empty continuation
frames (none with FIN), 10,000 at a time; between batches it looks whether the server said
anything, and stops sending when it has. It prints one JSON line:
  {"sent": N, "close_code": CODE or null, "reason": TEXT, "eof": BOOL}
"""

import base64
import json
import os
import select
import socket
import struct
import sys
import time

BATCH = 10_000


def masked_frame(opcode, payload, fin):
    mask = os.urandom(4)
    data = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([(0x80 if fin else 0) | opcode, 0x80 | len(payload)]) + mask + data


def read_exactly(sock, count, deadline):
    data = b""
    while len(data) < count:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def main():
    port, frames = int(sys.argv[1]), int(sys.argv[2])
    headers = []
    args = sys.argv[3:]
    while args:
        if args[0] == "--header":
            headers.append(args[1])
            args = args[2:]
        else:
            sys.exit("unknown argument " + args[0])
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        "GET /gateway/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\n" % key
        + "".join(h + "\r\n" for h in headers)
        + "\r\n"
    )
    sock.sendall(request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            sys.exit("the server closed the connection during the handshake: %r" % head)
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        sys.exit("the upgrade was refused: %r" % head)

    sock.sendall(masked_frame(0x1, b'{"type": "pi', fin=False))
    continuation = masked_frame(0x0, b"", fin=False)
    sent = 0
    said_something = False
    while sent < frames and not said_something:
        count = min(BATCH, frames - sent)
        try:
            sock.sendall(continuation * count)
        except OSError:
            break
        sent += count
        said_something = bool(select.select([sock], [], [], 0)[0])

    deadline = time.monotonic() + 30
    result = {"sent": sent, "close_code": None, "reason": "", "eof": False}
    try:
        while True:
            first, second = read_exactly(sock, 2, deadline)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", read_exactly(sock, 2, deadline))[0]
            elif length == 127:
                length = struct.unpack("!Q", read_exactly(sock, 8, deadline))[0]
            payload = read_exactly(sock, length, deadline)
            if first & 0x0F == 0x8:
                if len(payload) >= 2:
                    result["close_code"] = struct.unpack("!H", payload[:2])[0]
                    result["reason"] = payload[2:].decode("utf-8", "replace")
                break
    except (EOFError, OSError):
        result["eof"] = True
    print(json.dumps(result))


if __name__ == "__main__":
    main()
