#!/usr/bin/env bash
# s3_bench.sh [--runs N] [--size MIB] [--entries N] BUILD_DIR
#
# The s3 figures of the s3 issue in one run: BUILD_DIR/bin/s3_benchmark starts a throwaway
# Ceph radosgw on 127.0.0.1 (autotests/testutil/rgwfixture.cpp), measures the s3 worker
# interleaved with rclone and prints one table of medians with the bars. It asserts no
# time. Not part of tests/bench.sh: it needs radosgw, the Ceph daemons and rclone
# (scripts/setup.sh --test), which the budget run does not.
set -euo pipefail
args=()
while [[ $# -gt 1 ]]; do
    args+=("$1")
    shift
done
build=${1:?usage: s3_bench.sh [--runs N] [--size MIB] [--entries N] BUILD_DIR}
bin="$build/bin/s3_benchmark"
if [[ ! -x $bin ]]; then
    echo "s3_bench.sh: $bin is not built" >&2
    exit 1
fi
exec "$bin" "${args[@]}"
