#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (ctest: unit, worker, job,
# CLI and benchmark smoke tests, and the fuzzers for a bounded time when clang is there).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
"$here/scripts/setup.sh" --test
"$here/scripts/build.sh"
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --timeout 600
if command -v clang++ >/dev/null && [[ -f fuzz/run.sh ]]; then
    bash fuzz/run.sh "${FUZZ_BUILD_DIR:-build-fuzz}" "${QVFS_FUZZ_SECONDS:-20}"
fi
