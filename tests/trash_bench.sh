#!/usr/bin/env bash
# trash_bench.sh [--runs N] BUILD_DIR
#
# The figures of the trash issue in one run, each beside GLib's `gio trash` measured in the
# same run on the same files: trashing 1,000 files in one command, trashing a 256 MiB file
# on a second volume (a loop-mounted ext4 image: a rename, never a copy), emptying a trash
# of 100,000 entries (how soon trash:/ lists empty after the command, and how long the
# deletion behind it takes), and listing a trash of 10,000 entries. Medians of --runs runs
# (default 3), the two programs interleaved. It asserts no time.
#
# Runs as root in a private mount namespace with a throwaway HOME and XDG_DATA_HOME (no
# real trash is touched). `gio trash --list` and `--empty` need GVfs's trash backend:
# scripts/private-gvfs.sh unpacks Debian's gvfs packages (nothing is installed) and runs
# its gvfsd on a private D-Bus session. Needs gio (libglib2.0-bin), dbus-run-session,
# mkfs.ext4 (scripts/setup.sh --test).
set -euo pipefail
runs=3
while [[ $# -gt 1 ]]; do
    case $1 in
    --runs) runs=$2; shift 2 ;;
    *) echo "usage: trash_bench.sh [--runs N] BUILD_DIR" >&2; exit 2 ;;
    esac
done
build=$(cd "${1:?usage: trash_bench.sh [--runs N] BUILD_DIR}" && pwd)
qvfs="$build/bin/qvfs"
[[ -x $qvfs ]] || { echo "trash_bench.sh: $qvfs is not built" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "trash_bench.sh: needs root (loop mounts)" >&2; exit 1; }

# ---- stage 1: a private mount namespace, a private D-Bus session with GVfs's gvfsd ----
if [[ -z ${QVFS_TRASH_BENCH_WORK:-} ]]; then
    # The throwaway home first: gvfsd and its trash backend must never see the real one.
    work=$(mktemp -d /var/tmp/qvfs-trash-bench.XXXXXX)
    export QVFS_TRASH_BENCH_WORK=$work HOME=$work/home XDG_DATA_HOME=$work/home/data
    mkdir -p "$XDG_DATA_HOME"
    status=0
    unshare -m "$(dirname "$0")/../scripts/private-gvfs.sh" bash "$0" --runs "$runs" "$build" || status=$?
    rm -rf "$work"
    exit $status
fi
mount --make-rprivate /
export LC_ALL=C

work=$QVFS_TRASH_BENCH_WORK
cleanup() {
    umount -l "$work/vol" 2>/dev/null || true
}
trap cleanup EXIT
mkdir -p "$work/w" "$work/vol"
home_trash=$XDG_DATA_HOME/Trash
gvfsd_pid=$QVFS_PRIVATE_GVFSD_PID # private-gvfs.sh's, which stops it

now() { date +%s%N; }
ms() { echo $(( ($2 - $1) / 1000000 )); }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
empty_trashes() { rm -rf "$home_trash" "$work"/vol/.Trash-0; }
make_files() { # DIR COUNT
    python3 - "$1" "$2" <<'EOF'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d, exist_ok=True)
for i in range(n):
    with open(os.path.join(d, "f%06d" % i), "w") as f:
        f.write("x")
EOF
}
fill_trash() { # COUNT: entries straight into the home trash, as another program left them
    python3 - "$home_trash" "$1" <<'EOF'
import os, sys, time
t, n = sys.argv[1], int(sys.argv[2])
for p in ("files", "info"):
    os.makedirs(os.path.join(t, p), mode=0o700, exist_ok=True)
date = time.strftime("%Y-%m-%dT%H:%M:%S")
for i in range(n):
    name = "e%06d" % i
    with open(os.path.join(t, "files", name), "w") as f:
        f.write("x")
    with open(os.path.join(t, "info", name + ".trashinfo"), "w") as f:
        f.write("[Trash Info]\nPath=/gone/%s\nDeletionDate=%s\n" % (name, date))
EOF
}
listed() { "$@" | wc -l; }

# ---- 1. trash 1,000 files in one command ----
q1=() g1=()
for ((r = 0; r < runs; r++)); do
    for tool in qvfs gio; do
        empty_trashes
        make_files "$work/w/t" 1000
        cd "$work/w/t"
        s=$(now)
        # gio as on a machine without GVfs: its plain local trashing is the faster one.
        if [[ $tool == qvfs ]]; then "$qvfs" trash f*; else env -u GIO_EXTRA_MODULES gio trash f*; fi
        e=$(now)
        cd "$work"
        left=$(ls "$work/w/t" | wc -l)
        [[ $left -eq 0 ]] || { echo "trash_bench.sh: $tool left $left files" >&2; exit 1; }
        if [[ $tool == qvfs ]]; then q1+=("$(ms "$s" "$e")"); else g1+=("$(ms "$s" "$e")"); fi
    done
done
t1q=$(printf '%s\n' "${q1[@]}" | median)
t1g=$(printf '%s\n' "${g1[@]}" | median)

# ---- 2. a 256 MiB file on a second volume ----
truncate -s 600M "$work/vol.img"
mkfs.ext4 -q -F "$work/vol.img"
mount -o loop "$work/vol.img" "$work/vol"
q2=()
copied=no
for ((r = 0; r < runs; r++)); do
    empty_trashes
    head -c $((256 * 1024 * 1024)) /dev/zero >"$work/vol/big"
    sync
    inode=$(stat -c %i "$work/vol/big")
    s=$(now)
    "$qvfs" trash "$work/vol/big"
    e=$(now)
    q2+=("$(ms "$s" "$e")")
    [[ $(stat -c %i "$work/vol/.Trash-0/files/big") == "$inode" ]] || copied=yes
    [[ -e $home_trash/files/big ]] && copied=yes
done
t2q=$(printf '%s\n' "${q2[@]}" | median)
rm -rf "$work"/vol/.Trash-0

# ---- 3. empty a trash of 100,000 entries ----
q3a=() q3l=() q3d=() g3a=() g3l=() g3d=()
gio_limit=30 # seconds: gvfsd-trash deletes 100,000 entries far slower than that (nemo#925)
wait_gone() { # DIR: until it is empty or gone
    while [[ -d $1 ]] && [[ -n $(ls -A "$1" 2>/dev/null | head -1) ]]; do sleep 0.05; done
}
for ((r = 0; r < runs; r++)); do
    empty_trashes
    fill_trash 100000
    s=$(now)
    "$qvfs" trash --empty
    e=$(now)
    n=$(listed "$qvfs" trash --list)
    l=$(now)
    wait_gone "$home_trash/expunged" # the worker deletes after the command ended
    d=$(now)
    [[ $n -eq 0 ]] || echo "trash_bench.sh: qvfs still listed $n entries after emptying" >&2
    q3a+=("$(ms "$s" "$e")"); q3l+=("$(ms "$e" "$l")"); q3d+=("$(ms "$s" "$d")")

    empty_trashes
    fill_trash 100000
    s=$(now)
    if timeout "$gio_limit" gio trash --empty; then
        e=$(now)
        n=$(listed gio trash --list)
        l=$(now)
        wait_gone "$home_trash/files"
        d=$(now)
        g3a+=("$(ms "$s" "$e")"); g3l+=("$(ms "$e" "$l")"); g3d+=("$(ms "$s" "$d")")
    else
        # Still deleting: stop gvfsd's trash backend (gvfsd starts it again when asked).
        pkill -P "$gvfsd_pid" || true
        g3a+=(">$((gio_limit * 1000))"); g3l+=("-"); g3d+=(">$((gio_limit * 1000))")
    fi
done
t3qa=$(printf '%s\n' "${q3a[@]}" | median); t3ql=$(printf '%s\n' "${q3l[@]}" | median)
t3qd=$(printf '%s\n' "${q3d[@]}" | median)
t3ga=$(printf '%s\n' "${g3a[@]}" | sed 's/^>//' | median); t3gl=$(printf '%s\n' "${g3l[@]}" | median)
t3gd=$(printf '%s\n' "${g3d[@]}" | sed 's/^>//' | median)
[[ ${g3a[0]} == '>'* ]] && t3ga=">$t3ga" && t3gd=">$t3gd"

# ---- 4. list a trash of 10,000 entries ----
empty_trashes
fill_trash 10000
listed "$qvfs" trash --list >/dev/null # warm both: the page cache, gvfsd's trash backend
listed gio trash --list >/dev/null
q4=() g4=()
for ((r = 0; r < runs; r++)); do
    s=$(now); nq=$(listed "$qvfs" trash --list); e=$(now); q4+=("$(ms "$s" "$e")")
    s=$(now); ng=$(listed gio trash --list); e=$(now); g4+=("$(ms "$s" "$e")")
done
[[ $nq -eq 10000 && $ng -eq 10000 ]] || echo "trash_bench.sh: listed $nq (qvfs) and $ng (gio) of 10000" >&2
t4q=$(printf '%s\n' "${q4[@]}" | median)
t4g=$(printf '%s\n' "${g4[@]}" | median)

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }
verdict() { awk -v v="$1" -v bar="$2" 'BEGIN { print (v <= bar ? "met" : "MISSED") }'; }
r1=$(ratio "$t1q" "$t1g"); r4=$(ratio "$t4q" "$t4g")
echo
echo "trash_bench.sh: medians of $runs runs (ms), $(nproc) cores"
echo
echo "| figure | qvfs | gio trash | ratio | bar |"
echo "|---|---|---|---|---|"
echo "| trash 1,000 files, one command | $t1q | $t1g | $r1 | <= 1.5x $(verdict "${r1%x}" 1.5) |"
echo "| trash 256 MiB on a second volume (whole command) | $t2q | - | - | <= 20 ms $(verdict "$t2q" 20); copied: $copied |"
echo "| empty 100,000: command | $t3qa | $t3ga | - | - |"
echo "| empty 100,000: listing after it ends (lists empty) | $t3ql | $t3gl | - | <= 100 ms $(verdict "$t3ql" 100) |"
echo "| empty 100,000: until every file is deleted | $t3qd | $t3gd | - | - |"
echo "| list 10,000 entries | $t4q | $t4g | $r4 | <= 1.0x $(verdict "${r4%x}" 1.0) |"
