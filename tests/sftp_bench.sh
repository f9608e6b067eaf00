#!/usr/bin/env bash
# sftp_bench.sh [--runs N] [--size MIB] [--entries N] [--delay-ms N] BUILD_DIR
#
# The sftp figures of issue 12 in one run: BUILD_DIR/bin/sftp_benchmark starts a
# throwaway sshd on 127.0.0.1 (and tests/delayproxy for the 20 ms round trip), measures
# the sftp worker interleaved with OpenSSH's `sftp -b` and prints one table of medians
# with the bars. It asserts no time. Not part of tests/bench.sh: starting the sshd
# fixture needs root and openssh-server (scripts/setup.sh --test), which the budget run
# does not.
set -euo pipefail
args=()
while [[ $# -gt 1 ]]; do
    args+=("$1")
    shift
done
build=${1:?usage: sftp_bench.sh [--runs N] [--size MIB] [--entries N] [--delay-ms N] BUILD_DIR}
bin="$build/bin/sftp_benchmark"
if [[ ! -x $bin ]]; then
    echo "sftp_bench.sh: $bin is not built" >&2
    exit 1
fi
exec "$bin" "${args[@]}"
