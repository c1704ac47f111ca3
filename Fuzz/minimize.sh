#!/usr/bin/env bash
# Shrinks each corpus to inputs that cover every edge it covers (-merge=1 -use_counters=0 into an empty
# directory), keeping the hand-made seeds (seed-*) and the inputs of fixed findings (found-*).
# Run after fuzzing with FUZZ_MERGE=1; uses the programs run.sh built.
#
#   Fuzz/minimize.sh [target...]      (default: every target in Corpus/)
set -euo pipefail
cd "$(dirname "$0")"
FUZZ_BUILD=${FUZZ_BUILD:-/tmp/pushkit-fuzz-build}
bin="$FUZZ_BUILD/release"
export SWIFT_BACKTRACE=enable=no
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for directory in Corpus/*/; do targets+=("$(basename "$directory")"); done
fi
for target in "${targets[@]}"; do
    corpus="Corpus/$target"
    kept=$(mktemp -d)
    before=$(ls "$corpus" | wc -l)
    "$bin/fuzz-$target" -merge=1 -use_counters=0 "$kept" "$corpus" -timeout=5 -rss_limit_mb=2048 >"$FUZZ_BUILD/minimize-$target.log" 2>&1
    find "$corpus" -maxdepth 1 -type f ! -name 'seed-*' ! -name 'found-*' -delete
    for file in "$kept"/*; do
        [ -e "$file" ] || continue
        cp "$file" "$corpus/"
    done
    rm -rf "$kept"
    # Drop copies of seeds and findings that merge wrote under their SHA-1 names.
    for named in "$corpus"/seed-* "$corpus"/found-*; do
        [ -e "$named" ] || continue
        sha=$(sha1sum "$named" | cut -d' ' -f1)
        rm -f "$corpus/$sha"
    done
    echo "$target: $before -> $(ls "$corpus" | wc -l) files, $(du -sk "$corpus" | cut -f1) KB"
done
