#!/usr/bin/env python3
"""Writes an SQLite devices.db of the shape a FastAPI notification service keeps, for the tests of
`register-apns import devices.db`.

Usage: make_devices_db.py OUT.db < spec.json
spec: {"create": "CREATE TABLE ..." (optional; default the service's devices table),
       "rows": [{"token": ..., "device_name": ..., ...}, ...] (columns as given, values as JSON gives
       them: strings become TEXT, integers INTEGER, floats REAL, null NULL)}
"""
import json
import sqlite3
import sys

DEFAULT_TABLE = """CREATE TABLE devices (
    token TEXT PRIMARY KEY,
    device_name TEXT,
    device_model TEXT,
    os_version TEXT,
    app_version TEXT,
    registered_at TEXT,
    last_seen_at TEXT
)"""


def main():
    out = sys.argv[1]
    spec = json.load(sys.stdin)
    connection = sqlite3.connect(out)
    connection.execute(spec.get("create", DEFAULT_TABLE))
    for row in spec.get("rows", []):
        columns = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        connection.execute(f"INSERT INTO devices ({columns}) VALUES ({marks})", list(row.values()))
    connection.commit()
    connection.close()


if __name__ == "__main__":
    main()
