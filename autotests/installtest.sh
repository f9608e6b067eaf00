#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The installed package, as a user and a worker author get it:
#  1. installs the build into a temporary prefix and MOVES the prefix: a relocated
#     installation must work without any environment variable;
#  2. runs the installed `qvfs` there (list, copy, delete);
#  3. builds examples/worker as a separate CMake project against the installed Qvfs
#     package (find_package(Qvfs), Qvfs::Worker, qvfs_add_worker());
#  4. lists through that out-of-tree worker with the installed `qvfs`, and runs the
#     conformance rows its capabilities cover against it.
# Usage: installtest.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/qvfs-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset QVFS_WORKER_PATH LD_LIBRARY_PATH QVFS_WORKER_PREFIX

fail() {
    echo "installtest: $*" >&2
    exit 1
}

cmake --install "$build" --prefix "$tmp/stage" >"$tmp/install.log" || fail "cmake --install failed: $(tail -5 "$tmp/install.log")"
mv "$tmp/stage" "$tmp/moved"
prefix=$tmp/moved
qvfs=$prefix/bin/qvfs

# 2. The client and the file worker from the moved prefix.
mkdir -p "$tmp/data/sub"
printf 'hello\n' >"$tmp/data/a.txt"
out=$("$qvfs" ls "$tmp/data") || fail "installed qvfs ls failed: $out"
grep -qx 'a.txt' <<<"$out" && grep -qx 'sub' <<<"$out" || fail "installed qvfs ls printed: $out"
"$qvfs" cp "$tmp/data/a.txt" "$tmp/data/b.txt" || fail "installed qvfs cp failed"
cmp -s "$tmp/data/a.txt" "$tmp/data/b.txt" || fail "the copy differs"
"$qvfs" rm "$tmp/data/b.txt" || fail "installed qvfs rm failed"
[ ! -e "$tmp/data/b.txt" ] || fail "qvfs rm left the file"
for f in "$qvfs" "$prefix"/libexec/qvfs/qvfs-client "$prefix"/libexec/qvfs/qvfs-worker-file; do
    if readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -q "$build"; then
        fail "$f points into the build tree"
    fi
done
echo "installtest: the installed client works from a moved prefix"

# 3. A worker outside the source tree, against the installed package.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$src/examples/worker" -B "$tmp/example" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/example-configure.log" 2>&1 \
    || fail "configuring the example worker failed: $(tail -20 "$tmp/example-configure.log")"
cmake --build "$tmp/example" >"$tmp/example-build.log" 2>&1 \
    || fail "building the example worker failed: $(tail -20 "$tmp/example-build.log")"
if grep -q 'warning:' "$tmp/example-build.log"; then
    fail "the example worker builds with warnings: $(grep 'warning:' "$tmp/example-build.log" | head -5)"
fi
echo "installtest: the example worker builds out of tree against the installed package"

# 4. Used: by the installed client, then by the conformance rows.
out=$(QVFS_WORKER_PATH="$tmp/example" QVFS_EXAMPLE_ROOT="$tmp/data" "$qvfs" ls example:///) \
    || fail "qvfs ls example:/// failed: $out"
grep -qx 'a.txt' <<<"$out" || fail "qvfs ls example:/// printed: $out"
if ! QVFS_WORKER_PATH="$tmp/example" QVFS_CONFORMANCE_BACKENDS=example "$build/bin/conformancetest" >"$tmp/conformance.log" 2>&1; then
    grep -E 'FAIL|Totals' "$tmp/conformance.log" >&2 || true
    fail "conformance rows failed against the example worker"
fi
grep -q 'is not available' "$tmp/conformance.log" && fail "the example backend did not start: $(grep -m1 'is not available' "$tmp/conformance.log")"
grep 'Totals' "$tmp/conformance.log"
echo "installtest: the example worker passes the conformance rows it can run"
