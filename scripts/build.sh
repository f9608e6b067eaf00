#!/usr/bin/env bash
# Configures and builds Qvfs into BUILD_DIR (default: build). Extra arguments go to cmake.
# Debug information is line tables only (-g1): backtraces, sanitizer reports and perf keep
# their file:line and function names, and the build takes about a fifth less CPU than with
# full -g. For a debugger that shows local variables, pass e.g.
# -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O2 -g -DNDEBUG' (or -DCMAKE_CXX_FLAGS_DEBUG=-g).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO='-O2 -g1 -DNDEBUG' -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O2 -g1 -DNDEBUG' \
    -DCMAKE_C_FLAGS_DEBUG='-g1' -DCMAKE_CXX_FLAGS_DEBUG='-g1' "$@" >/dev/null
cmake --build "$build"
