#!/usr/bin/env bash
# http_bench.sh [--runs N] [--size MIB] [--entries N] [--stats N] [--delay-ms N] [--only LIST] BUILD_DIR
#
# The http(s)/WebDAV figures of issue 11 in one run: BUILD_DIR/bin/http_benchmark starts
# a throwaway nginx with dav-ext on 127.0.0.1 (autotests/testutil/httpserverfixture, TLS
# and HTTP/2 on its https port), measures the http worker interleaved with curl (and
# rclone lsf for the listing) and prints one table of medians with the bars. The rows
# through a 20 ms round trip run when BUILD_DIR/bin/delayproxy is built. It asserts no
# time. Not part of tests/bench.sh: the servers come with scripts/setup.sh --test.
set -euo pipefail
args=()
while [[ $# -gt 1 ]]; do
    args+=("$1")
    shift
done
build=${1:?usage: http_bench.sh [--runs N] [--size MIB] [--entries N] [--stats N] [--delay-ms N] [--only LIST] BUILD_DIR}
bin="$build/bin/http_benchmark"
if [[ ! -x $bin ]]; then
    echo "http_bench.sh: $bin is not built" >&2
    exit 1
fi
exec "$bin" "${args[@]}"
