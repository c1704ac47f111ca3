#!/usr/bin/env python3
"""The FastAPI /register-apns server pushkit-free replaces, as far as its state file is concerned.

    legacy_fastapi_writer.py FILE register DEVICE_ID=APNS_TOKEN ...
        for each pair, exactly what that server's handler does: read the whole file, set one key,
        write it back in place (write_text truncates and rewrites), with no lock.
    legacy_fastapi_writer.py FILE list
        what that server's own send loop sees: `tokens.items()`, printed as a JSON object. Exits 1
        (naming the entry) when a value is not a string, as that loop would then send to `1` or to
        a dict as if it were a device token.
"""
import json
import pathlib
import sys


def register(path, device_token, apns_token):
    tokens = json.loads(path.read_text())
    tokens[device_token] = apns_token
    path.write_text(json.dumps(tokens))


def listing(path):
    tokens = json.loads(path.read_text())
    seen = {}
    for device_token, apns_token in tokens.items():
        if not isinstance(apns_token, str):
            print(f"entry {device_token!r} is {type(apns_token).__name__}, not a token", file=sys.stderr)
            return 1
        seen[device_token] = apns_token
    print(json.dumps(seen, sort_keys=True))
    return 0


def main(argv):
    if len(argv) < 3 or argv[2] not in ("register", "list"):
        print(__doc__, file=sys.stderr)
        return 64
    path = pathlib.Path(argv[1])
    if argv[2] == "list":
        return listing(path)
    for pair in argv[3:]:
        device_token, _, apns_token = pair.partition("=")
        register(path, device_token, apns_token)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
