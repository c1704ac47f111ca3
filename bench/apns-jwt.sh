#!/usr/bin/env bash
# What `apns-jwt` costs per run: warm cache (the normal case), a forced new signature, and openssl
# producing an equivalent ES256 signature (alone, and as the shell recipe in Apple's documentation).
# Usage: bench/apns-jwt.sh BIN_DIR      (release products directory)
set -euo pipefail
BIN=${1:?usage: bench/apns-jwt.sh BIN_DIR}
source "$(dirname "$0")/lib.sh"
"$BIN/apns-jwt" >/dev/null   # warm the cache
printf '%s' "$("$BIN/apns-jwt" | cut -d. -f1-2)" > "$work/input"

cat > "$work/apple-recipe.sh" <<'SH'
# The recipe from Apple's "Establishing a token-based connection to APNs", condensed.
jwt_issue_time=$(date +%s)
jwt_header=$(printf '{ "alg": "ES256", "kid": "%s" }' "$APNS_KEY_ID" | base64 | tr -d '=' | tr '/+' '_-' | tr -d '\n')
jwt_claims=$(printf '{ "iss": "%s", "iat": %d }' "$APNS_TEAM_ID" "$jwt_issue_time" | base64 | tr -d '=' | tr '/+' '_-' | tr -d '\n')
jwt_header_claims="${jwt_header}.${jwt_claims}"
jwt_signed_header_claims=$(printf '%s' "$jwt_header_claims" | openssl dgst -binary -sha256 -sign "$APNS_KEY_PATH" | base64 | tr -d '=' | tr '/+' '_-' | tr -d '\n')
echo "${jwt_header}.${jwt_claims}.${jwt_signed_header_claims}"
SH

hyperfine --warmup 5 --runs 100 -N --export-json "$work/jwt.json" \
  -n "apns-jwt (warm cache)" "$BIN/apns-jwt" \
  -n "apns-jwt --refresh (new signature)" "$BIN/apns-jwt --refresh" \
  -n "openssl dgst -sign (signature only)" "openssl dgst -sha256 -sign $work/key.p8 -out /dev/null $work/input" \
  >/dev/null
hyperfine --warmup 5 --runs 50 --export-json "$work/apple.json" \
  -n "Apple's shell recipe (openssl + base64 + tr)" "bash $work/apple-recipe.sh" >/dev/null

python3 - "$work/jwt.json" "$work/apple.json" <<'PY'
import json, sys
rows = []
for path in sys.argv[1:]:
    rows += json.load(open(path))["results"]
base = rows[0]["median"]
print("apns-jwt: median wall time per run (hyperfine)")
for r in rows:
    print(f"  {r['command']:<48} median {r['median']*1000:7.2f} ms   ({r['median']/base:5.2f}x warm apns-jwt)")
PY
