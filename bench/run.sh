#!/usr/bin/env bash
# Runs every benchmark against the release products in BIN_DIR and prints the numbers, then one
# table of every row with its same-run reference, ratio and goal (bench/table.py).
# Numbers, not pass/fail: see bench/README.md for targets and the last recorded results.
# UPDATE_DOCS=1 also writes that table into docs/internals.md's performance section.
set -uo pipefail
BIN=${1:?usage: bench/run.sh BIN_DIR}
cd "$(dirname "$0")"
BENCH_ROWS=$(mktemp)
export BENCH_ROWS
trap 'rm -f "$BENCH_ROWS"' EXIT
status=0
for script in startup.sh apns-jwt.sh registry.sh emulator.sh send-push.sh hook.sh serve.sh serve-postgres.sh mcp.sh; do
  [ -f "$script" ] || continue
  echo "== $script"
  bash "$script" "$BIN" || { echo "$script failed"; status=1; }
  echo
done
# Registrations into a file that already holds 100,000 devices.
echo "== serve.sh with a 100,000-device state file (registrations only)"
PREFILL=100000 ONLY_REGISTRATION=1 bash serve.sh "$BIN" || { echo "serve.sh (100,000) failed"; status=1; }
echo
echo "== serve-postgres.sh with 100,000 devices in the file and in the database"
PREFILL=100000 bash serve-postgres.sh "$BIN" || { echo "serve-postgres.sh (100,000) failed"; status=1; }
echo
echo "== summary (every row with its same-run reference)"
if [ "${UPDATE_DOCS:-0}" = 1 ]; then
  python3 table.py "$BENCH_ROWS" --update ../docs/internals.md || status=1
else
  python3 table.py "$BENCH_ROWS" || status=1
fi
exit $status
