#!/usr/bin/env bash
# Builds the fuzz targets and runs each for a bounded time; `make fuzz` runs this.
#
#   Fuzz/run.sh [target...]      (default: every target in Corpus/)
#
# Environment: FUZZ_SECONDS (per target, default 60), FUZZ_BUILD (scratch path, default
# /tmp/pushkit-fuzz-build), FUZZ_SANITIZE (default fuzzer,address), FUZZ_MERGE=1 to add the run's
# new inputs to Corpus/ when they add coverage (libFuzzer -merge=1; minimize.sh shrinks it after).
# Each target runs in one process, one input at a time (no -jobs/-workers: those fork workers that
# write fuzz-N.log here). Prints per target: seconds, executions (stat::number_of_executed_units),
# corpus size; exits 1 when any target crashed, hung or broke a property (input saved in artifacts/).
set -uo pipefail
cd "$(dirname "$0")"
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_BUILD=${FUZZ_BUILD:-/tmp/pushkit-fuzz-build}
FUZZ_SANITIZE=${FUZZ_SANITIZE:-fuzzer,address}
SWIFT=${SWIFT:-swift}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for directory in Corpus/*/; do targets+=("$(basename "$directory")"); done
fi

# The same dependency versions as the main package (and no network needed when they are cached).
[ -f ../Package.resolved ] && cp ../Package.resolved Package.resolved
build=("$SWIFT" build -c release --scratch-path "$FUZZ_BUILD" -Xswiftc "-sanitize=$FUZZ_SANITIZE")
echo "building: ${build[*]}" >&2
"${build[@]}" >&2 || { echo "fuzz: build failed" >&2; exit 2; }
bin=$("${build[@]}" --show-bin-path)

# libFuzzer reports crashes itself; Swift's backtracer would only add minutes per crash.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
mkdir -p artifacts
failed=()
printf '%-18s %8s %12s %8s  %s\n' target seconds executions corpus result
for target in "${targets[@]}"; do
    corpus="Corpus/$target"
    log="$FUZZ_BUILD/fuzz-$target.log"
    new=$(mktemp -d)
    start=$(date +%s)
    "$bin/fuzz-$target" "$new" "$corpus" -dict=json.dict -max_total_time="$FUZZ_SECONDS" -timeout=5 -rss_limit_mb=2048 \
        -max_len=8192 -print_final_stats=1 -artifact_prefix="artifacts/$target-" >"$log" 2>&1
    status=$?
    seconds=$(( $(date +%s) - start ))
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    if [ "${FUZZ_MERGE:-0}" = 1 ] && [ $status -eq 0 ]; then
        "$bin/fuzz-$target" -merge=1 "$corpus" "$new" -dict=json.dict -timeout=5 -rss_limit_mb=2048 >>"$log" 2>&1 || status=$?
    fi
    rm -rf "$new"
    result=ok
    if [ $status -ne 0 ]; then
        result="FAILED (exit $status, log $log)"
        failed+=("$target")
        grep -E 'ERROR|Fatal error|==[0-9]+==|Test unit written' "$log" | head -5 >&2
    fi
    printf '%-18s %8s %12s %8s  %s\n' "$target" "$seconds" "${executions:-?}" "$(ls "$corpus" | wc -l)" "$result"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
    exit 1
fi
