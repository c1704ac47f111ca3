#!/usr/bin/env python3
"""Writes a version 1 state file of N devices, "prefill-000000" and on, as an earlier release wrote
it (no journal_base): the registry serve.sh and serve-postgres.sh start from with PREFILL=N.
Usage: bench/prefill.py PATH N"""
import json
import sys

path, count = sys.argv[1], int(sys.argv[2])
with open(path, "w") as out:
    out.write('{\n  "version": 1,\n  "devices": {\n')
    out.write(",\n".join(f'    "prefill-{i:06d}": ' + json.dumps({
        "token": f"ff{i:062x}", "environment": "production", "name": None, "model": None, "os_version": None,
        "app_version": None, "groups": [], "registered_at": "2026-01-01T00:00:00.000Z",
        "last_seen_at": "2026-01-01T00:00:00.000Z", "last_delivered_at": None}, separators=(",", ":"))
        for i in range(count)))
    out.write("\n  }\n}\n")
