#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the libFuzzer targets in a separate clang build folder and runs each for a
# bounded time over its seed corpus.
#
#   fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
#
# Prints per target the executions, the coverage (libFuzzer's final "cov:"), the corpus
# size and whether it crashed; exits non-zero if one crashed (the reproducer is kept in
# BUILD_DIR/fuzz/artifacts/<target>/). Without clang++ it says why and exits 0.
# Environment: FUZZ_DETECT_LEAKS=0 turns LeakSanitizer off; FUZZ_JOBS=N runs N targets
# at once (default 1); any QVFS_FUZZ_* variable is passed on to the targets.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_DIR SECONDS [TARGET...]" >&2
    exit 2
fi
build=$1
seconds=$2
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)

if ! command -v clang++ >/dev/null 2>&1; then
    echo "fuzz/run.sh: clang++ not found: libFuzzer needs clang; skipping the fuzzers"
    exit 0
fi
clangc=clang
command -v clang >/dev/null 2>&1 || clangc=cc

mkdir -p "$build"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$src" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_COMPILER="$clangc" -DCMAKE_CXX_COMPILER=clang++ -DQVFS_BUILD_FUZZERS=ON \
        -DBUILD_TESTING=OFF > "$build/fuzz-configure.log" 2>&1 || {
        echo "fuzz/run.sh: configuring $build failed, see $build/fuzz-configure.log" >&2
        tail -20 "$build/fuzz-configure.log" >&2
        exit 1
    }
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(fuzz_entrybatch fuzz_entryencoder fuzz_frames fuzz_propfind fuzz_url fuzz_workerjson fuzz_sftppacket)
fi
if ! cmake --build "$build" --target "${targets[@]}" > "$build/fuzz-build.log" 2>&1; then
    echo "fuzz/run.sh: building the fuzzers failed, see $build/fuzz-build.log" >&2
    grep -E "error|Error" "$build/fuzz-build.log" | head -20 >&2
    exit 1
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=${FUZZ_DETECT_LEAKS:-1}:abort_on_error=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-}:print_stacktrace=1:halt_on_error=1"

run_one() {
    local t=$1
    local bin="$build/fuzz/$t"
    local work="$build/fuzz/corpus-work/$t"
    local artifacts="$build/fuzz/artifacts/$t"
    local log="$build/fuzz/$t.log"
    mkdir -p "$work" "$artifacts"
    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "$work" "$src/fuzz/corpus/$t" > "$log" 2>&1
    echo $? > "$log.rc"
}

jobs=${FUZZ_JOBS:-1}
running=0
for t in "${targets[@]}"; do
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

status=0
printf '%-20s %12s %8s %8s %8s  %s\n' target runs cov ft corpus result
for t in "${targets[@]}"; do
    log="$build/fuzz/$t.log"
    rc=$(cat "$log.rc" 2>/dev/null || echo 1)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    last=$(grep -E '(#[0-9]+).*cov: ' "$log" | tail -1)
    cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<< "$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<< "$last")
    if [ "$rc" = 0 ]; then
        result="ok"
    else
        result="CRASHED (exit $rc): $(ls -t "$build/fuzz/artifacts/$t" 2>/dev/null | head -1) - see $log"
        status=1
    fi
    printf '%-20s %12s %8s %8s %8s  %s\n' "$t" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
done
exit $status
