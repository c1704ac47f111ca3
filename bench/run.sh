#!/usr/bin/env bash
# Runs every benchmark against the release products in BIN_DIR and prints the numbers.
# Numbers, not pass/fail: see bench/README.md for targets and the last recorded results.
set -uo pipefail
BIN=${1:?usage: bench/run.sh BIN_DIR}
cd "$(dirname "$0")"
status=0
for script in apns-jwt.sh registry.sh emulator.sh send-push.sh hook.sh serve.sh serve-postgres.sh; do
  [ -f "$script" ] || continue
  echo "== $script"
  bash "$script" "$BIN" || { echo "$script failed"; status=1; }
  echo
done
exit $status
