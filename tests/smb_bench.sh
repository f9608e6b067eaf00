#!/usr/bin/env bash
# smb_bench.sh [--runs N] [--size MIB] [--entries N] [--delay-ms N] BUILD_DIR
#
# The smb figures of the smb issue in one run: BUILD_DIR/bin/smb_benchmark starts a
# throwaway smbd on 127.0.0.1 (and tests/delayproxy for the 20 ms round trip), measures
# the smb worker interleaved with Samba's smbclient and prints one table of medians with
# the bars. It asserts no time. Not part of tests/bench.sh: it needs samba and smbclient
# (scripts/setup.sh --test), which the budget run does not.
set -euo pipefail
args=()
while [[ $# -gt 1 ]]; do
    args+=("$1")
    shift
done
build=${1:?usage: smb_bench.sh [--runs N] [--size MIB] [--entries N] [--delay-ms N] BUILD_DIR}
bin="$build/bin/smb_benchmark"
if [[ ! -x $bin ]]; then
    echo "smb_bench.sh: $bin is not built" >&2
    exit 1
fi
exec "$bin" "${args[@]}"
