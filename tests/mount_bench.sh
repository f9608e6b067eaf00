#!/usr/bin/env bash
# mount_bench.sh [--runs N] [--entries N] [--size MIB] BUILD_DIR
#
# The figures of `qvfs mount` (issue 24) in one run, as root: a throwaway sshd on
# 127.0.0.1 (BUILD_DIR/bin/qvfs-test-sshd), a folder of N entries and a file of MIB MiB
# on it, then, each run on fresh mounts and interleaved:
#   ls -l of the folder through the mount    beside  qvfs ls -l URL, and sshfs
#   cat of the file through the mount        beside  qvfs cat URL, and sshfs
#   100 stat(1) of one file through it       beside  100 qvfs stat URL
#   200 random 4 KiB preads (python3)        beside  the same through sshfs
# and prints one table of medians with the bars. It asserts no time. Needs sshfs and
# fuse3 (scripts/setup.sh --test installs them).
set -euo pipefail
runs=3 entries=10000 size=1024
while [[ $# -gt 1 ]]; do
    case $1 in
    --runs) runs=$2; shift 2 ;;
    --entries) entries=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    *) echo "mount_bench.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
build=$(cd "${1:?usage: mount_bench.sh [--runs N] [--entries N] [--size MIB] BUILD_DIR}" && pwd)
qvfs=$build/bin/qvfs
for tool in sshfs python3 fusermount3; do
    command -v $tool >/dev/null || { echo "mount_bench.sh: $tool is missing (scripts/setup.sh --test)" >&2; exit 1; }
done
[[ -x $qvfs && -x $build/bin/qvfs-test-sshd ]] || { echo "mount_bench.sh: build $build first" >&2; exit 1; }

work=$(mktemp -d /tmp/qvfs-mount-bench.XXXXXX)
mnt=$work/mnt
mkdir -p "$mnt"
fixture_in=$work/fixture.in
mkfifo "$fixture_in"
"$build/bin/qvfs-test-sshd" <"$fixture_in" >"$work/fixture.out" &
exec 8>"$fixture_in" # the fixture stops when this closes
for _ in $(seq 100); do [[ -s $work/fixture.out ]] && break; sleep 0.1; done
read -r status port dir config <"$work/fixture.out"
[[ $status == ok ]] || { echo "mount_bench.sh: sshd fixture: $(cat "$work/fixture.out")" >&2; exit 1; }
cleanup() {
    mountpoint -q "$mnt" && umount -l "$mnt"
    exec 8>&-
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -m 0700 "$work/run" # the sftp worker's connection sockets, gone with $work
export HOME=$dir QVFS_SSH_CONFIG=$config SSH_AUTH_SOCK=$dir/agent.sock XDG_RUNTIME_DIR=$work/run

data=$dir/data
mkdir -p "$data/many"
(cd "$data/many" && seq -f "entry-%05g.txt" 1 "$entries" | xargs touch)
head -c $((size * 1024 * 1024)) /dev/urandom >"$data/big"
echo hello >"$data/one"
url="sftp://root@127.0.0.1:$port$data"

now() { date +%s%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e6 }'; }
mount_qvfs() { "$qvfs" mount "$url" "$mnt" >/dev/null; }
mount_sshfs() { sshfs -o ssh_command="ssh -F $config" -p "$port" "root@127.0.0.1:$data" "$mnt"; }
unmount() { umount "$mnt"; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
pread_loop() {
    python3 - "$1" <<'PY'
import os, random, sys, time
random.seed(7)
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
offsets = [random.randrange(0, size - 4096) & ~4095 for _ in range(200)]
t = time.perf_counter()
for o in offsets:
    assert len(os.pread(fd, 4096, o)) == 4096
print("%.1f" % ((time.perf_counter() - t) * 1000))
PY
}

declare -A r
for run in $(seq "$runs"); do
    echo "run $run of $runs" >&2
    # ls -l of a folder, fresh mounts
    t0=$(now); "$qvfs" ls -l "$url/many" >/dev/null; t1=$(now); r[ls_cli]+="$(ms $t0 $t1) "
    mount_qvfs; t0=$(now); ls -l "$mnt/many" >/dev/null; t1=$(now); unmount; r[ls_mnt]+="$(ms $t0 $t1) "
    mount_sshfs; t0=$(now); ls -l "$mnt/many" >/dev/null; t1=$(now); unmount; r[ls_sshfs]+="$(ms $t0 $t1) "
    # cat of the big file, fresh mounts (no page cache)
    t0=$(now); "$qvfs" cat "$url/big" >/dev/null; t1=$(now); r[cat_cli]+="$(ms $t0 $t1) "
    mount_qvfs; t0=$(now); cat "$mnt/big" >/dev/null; t1=$(now); unmount; r[cat_mnt]+="$(ms $t0 $t1) "
    mount_sshfs; t0=$(now); cat "$mnt/big" >/dev/null; t1=$(now); unmount; r[cat_sshfs]+="$(ms $t0 $t1) "
    # 100 stats in a shell loop
    t0=$(now); for _ in $(seq 100); do "$qvfs" stat "$url/one" >/dev/null; done; t1=$(now); r[stat_cli]+="$(ms $t0 $t1) "
    mount_qvfs; stat "$mnt/one" >/dev/null
    t0=$(now); for _ in $(seq 100); do stat "$mnt/one" >/dev/null; done; t1=$(now); unmount; r[stat_mnt]+="$(ms $t0 $t1) "
    # random preads, fresh mounts
    mount_qvfs; r[pread_mnt]+="$(pread_loop "$mnt/big") "; unmount
    mount_sshfs; r[pread_sshfs]+="$(pread_loop "$mnt/big") "; unmount
done
m() { tr ' ' '\n' <<<"${r[$1]}" | grep . | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# verdict A OP B [FACTOR]: met when A OP FACTOR * B
verdict() { awk -v a="$1" -v b="$3" -v f="${4:-1}" -v op="$2" 'BEGIN {
    ok = (op == "<=") ? a <= f * b : (op == "<") ? a < f * b : a >= f * b; print ok ? "met" : "MISSED" }'; }
ls_mnt=$(m ls_mnt) ls_cli=$(m ls_cli) ls_sshfs=$(m ls_sshfs)
cat_mnt=$(m cat_mnt) cat_cli=$(m cat_cli) cat_sshfs=$(m cat_sshfs)
stat_mnt=$(m stat_mnt) stat_cli=$(m stat_cli)
pread_mnt=$(m pread_mnt) pread_sshfs=$(m pread_sshfs)
mib_s() { awk -v s="$size" -v t="$1" 'BEGIN { printf "%d", s * 1000 / t }'; }
echo
echo "qvfs mount over sftp on 127.0.0.1: medians of $runs runs, $entries entries, $size MiB"
echo
echo "| figure | qvfs mount | baseline, same run | ratio | bar | |"
echo "|---|---|---|---|---|---|"
echo "| ls -l of $entries entries, fresh mount | $ls_mnt ms | qvfs ls -l $ls_cli ms; sshfs $ls_sshfs ms | $(ratio $ls_mnt $ls_cli)x qvfs, $(ratio $ls_mnt $ls_sshfs)x sshfs | <= 2x qvfs, < sshfs | $(if [[ $(verdict $ls_mnt "<=" $ls_cli 2) == met ]]; then verdict $ls_mnt "<" $ls_sshfs; else echo MISSED; fi) |"
echo "| cat of $size MiB | $cat_mnt ms ($(mib_s $cat_mnt) MiB/s) | qvfs cat $cat_cli ms ($(mib_s $cat_cli) MiB/s); sshfs $cat_sshfs ms ($(mib_s $cat_sshfs) MiB/s) | $(ratio $cat_cli $cat_mnt)x qvfs throughput | >= 0.8x qvfs | $(verdict $cat_cli ">=" $cat_mnt 0.8) |"
echo "| 100 stat of one file | $(ratio $stat_mnt 100) ms/call | qvfs stat $(ratio $stat_cli 100) ms/call | $(ratio $stat_cli $stat_mnt)x faster | >= 5x faster | $(verdict $stat_cli ">=" $stat_mnt 5) |"
echo "| 200 random 4 KiB preads | $pread_mnt ms | sshfs $pread_sshfs ms | $(ratio $pread_mnt $pread_sshfs)x | <= 1.2x sshfs | $(verdict $pread_mnt "<=" $pread_sshfs 1.2) |"
