#!/usr/bin/env bash
# What one long line on standard input costs `pushkit-mcp`: CPU time (user + system) of a run that
# reads `initialize`, one line of 1, 2, 4 and 8 MiB (a `tools/list` request padded out), then a
# short request, and exits when standard input ends; against the same run with the short lines only.
# Every such line is over the limit (1 MiB): answered with a JSON-RPC error and skipped unkept, so
# the cost should grow with the bytes, not their square. Also a request of 1,000,000 bytes, under
# the limit, which is parsed and answered.
# Usage: bench/mcp.sh BIN_DIR      (release products directory)
set -euo pipefail
BIN=${1:?usage: bench/mcp.sh BIN_DIR}
source "$(dirname "$0")/lib.sh"
export PUSHKIT_STATE_DIR="$work/state"

python3 - "$BIN/pushkit-mcp" "$work" "${BENCH_ROWS:-/dev/null}" "${RUNS:-5}" <<'PY'
import json, os, resource, statistics, subprocess, sys
tool, work, rows_path, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
last = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})

def cpu_ms(padding):
    """Median CPU time of `runs` runs with a request padded by `padding` bytes (none for 0), in ms."""
    path = f"{work}/input-{padding}"
    with open(path, "w") as out:
        out.write(initialize + "\n")
        line = ('{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"padding": "' + "a" * padding
                + '"}}') if padding else ""
        if line:
            out.write(line + "\n")
        out.write(last + "\n")
    refused = len(line) > (1 << 20)
    times = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(path) as stdin:
            done = subprocess.run([tool], stdin=stdin, capture_output=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        answers = [json.loads(line) for line in done.stdout.splitlines()]
        ids = sorted(a["id"] for a in answers if a.get("id") is not None)
        assert ids == ([1, 3] if refused or not padding else [1, 2, 3]), done.stdout[:300]
        assert sum(1 for a in answers if a.get("id") is None) == (1 if refused else 0), done.stdout[:300]
        times.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return statistics.median(times)

base = cpu_ms(0)
print(f"pushkit-mcp: CPU time (user + system) of a run with one long line on standard input, median of {runs}")
print(f"  {'short lines only':<36} {base:8.1f} ms")
cases = [(1_000_000, "a 1,000,000-byte request (parsed)")] + [
    (mebibytes << 20, f"one {mebibytes} MiB line (refused)") for mebibytes in (1, 2, 4, 8)]
with open(rows_path, "a") as rows:
    for padding, what in cases:
        value = cpu_ms(padding)
        print(f"  {what:<36} {value:8.1f} ms   (+{value - base:.1f} ms over the short lines)")
        rows.write(json.dumps({"group": "pushkit-mcp", "what": what + " on standard input, CPU",
                               "value": value, "unit": "ms", "reference": "short lines only",
                               "reference_value": base}) + "\n")
PY
